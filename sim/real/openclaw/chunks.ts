// A release's dist/ chunks as the bundler (rolldown) wrote them: a header of import lines, the body in
// `//#region src/<file>.ts` ... `//#endregion` regions that keep the source file of every declaration, and one closing
// `export { local as x, ... };` line that gives the real (local) names their export letters. A function is found by
// (release, source file, real name): the chunk whose region of that file declares the name and whose export line
// exports it. Chunk names and letters change with every release; the source file and the real name rarely do.
//
// The index of a release is built once per process (every top-level dist/ chunk is read, `.js` and 2026.9.6's `.mjs`:
// about 1.3 s for 2026.4.24's 2,554 files, 2 s for 2026.7.1's 4,597, under 1 s warm for 2026.8.1's 5,852 and 2026.9.6's
// 7,012) and answers every lookup after.
//
// Region names. Most name a file of OpenClaw's own `src/` or `extensions/`; the monorepo's workspace packages appear as
// `packages/<name>/src/...` (2026.9.6: the gateway protocol's schemas, the session-key contract), indexed as they are.
// A bundled npm package appears as `node_modules/<package>/<file>` (2026.7.1's fs-safe) or, from 2026.9.6 on, by its
// pnpm store path `node_modules/.pnpm/<name>@<version>[_<peers>]/node_modules/<package>/<file>` (kysely, zod, fs-safe):
// indexed and looked up as `node_modules/<package>/<file>`, so a lookup names a package file the same way in every
// release, whatever version the release bundles.
import { listReleaseChunks, readReleaseChunk } from '../openclaw-hooks.mjs';
import { OpenclawLookupError, type OpenclawRelease, openclawReleases, requireRelease, workspaceMissing } from './releases.ts';

export interface ChunkImport {
  specifier: string;
  /** `import x from` */
  defaultLocal: string | undefined;
  /** `import * as x from` */
  namespaceLocal: string | undefined;
  /** `import { imported as local }` */
  named: { imported: string; local: string }[];
}

export interface ChunkExport {
  local: string;
  exported: string;
}

export interface ChunkRegion {
  sourceFile: string;
  /** 0-based line numbers, start inclusive, end exclusive. */
  startLine: number;
  endLine: number;
}

export interface ParsedChunk {
  imports: ChunkImport[];
  exports: ChunkExport[];
  regions: ChunkRegion[];
  /** `export * from "<specifier>"` lines (2026.7.1 has 198 such chunks): their lines, blanked when compiled. */
  starExports: { specifier: string; line: number }[];
  /** Import lines inside the body (after the first region starts): blanked when compiled. */
  bodyImportLines: number[];
  /** The lines of the header (import lines) and of the closing export line: blanked when the body is compiled. */
  headerLines: number;
  exportLine: number | undefined;
  /** Why the loader cannot instantiate this chunk (another closing shape), or undefined. */
  unsupported: string | undefined;
}

const importPattern = /^import\s+(?:([\w$]+)\s*,?\s*)?(?:\{([^}]*)\}\s*|\*\s+as\s+([\w$]+)\s*)?(?:from\s*)?"([^"]+)";?\s*$/;
const exportListPattern = /^export\s*\{([^}]*)\};?\s*$/;
const starExportPattern = /^export \* from "([^"]+)";?\s*$/;

function parseSpecifiers(list: string): { left: string; right: string }[] {
  return list
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part.length > 0)
    .map((part) => {
      const match = /^([\w$]+)(?:\s+as\s+([\w$]+))?$/.exec(part);
      if (match === null) throw new Error(`gatesim: cannot read the import/export specifier ${JSON.stringify(part)}`);
      const left = match[1] as string;
      return { left, right: match[2] ?? left };
    });
}

function importOf(match: RegExpExecArray): ChunkImport {
  return {
    specifier: match[4] as string,
    defaultLocal: match[1],
    namespaceLocal: match[3],
    named: match[2] === undefined ? [] : parseSpecifiers(match[2]).map(({ left, right }) => ({ imported: left, local: right })),
  };
}

/**
 * The lines (0-based) that start inside a template literal: text, not statements. 2026.9.6's plugin loader writes
 * modules from template literals whose lines begin `export const ...` (dist/plugin-setup-module-*.mjs), which are no
 * module-level statement of the chunk. A small lexer (comments, strings, template literals with `${}` nesting, regular
 * expressions after an operator or keyword), run only on a chunk with a line it would otherwise refuse.
 */
export function linesInTemplateLiterals(source: string): Set<number> {
  const inside = new Set<number>();
  // Each open template literal on the stack, with the `${` braces open inside it (-1 while in its text).
  const stack: number[] = [];
  let line = 0;
  let previous = ''; // the last significant character of code, for a `/` that starts a regular expression
  let word = ''; // the last word of code (return, typeof, ... before a regular expression)
  const regexAfter = new Set(['return', 'typeof', 'case', 'do', 'else', 'in', 'of', 'new', 'delete', 'void', 'throw', 'yield', 'await']);
  let index = 0;
  const length = source.length;
  const inTemplateText = () => stack.length > 0 && stack[stack.length - 1] === -1;
  while (index < length) {
    const char = source[index] as string;
    if (char === '\n') {
      line++;
      if (inTemplateText()) inside.add(line);
      index++;
      continue;
    }
    if (inTemplateText()) {
      if (char === '\\') index += 2;
      else if (char === '`') {
        stack.pop();
        previous = '`';
        index++;
      } else if (char === '$' && source[index + 1] === '{') {
        stack[stack.length - 1] = 0;
        previous = '{';
        index += 2;
      } else index++;
      continue;
    }
    if (char === '/' && source[index + 1] === '/') {
      const end = source.indexOf('\n', index);
      index = end < 0 ? length : end;
      continue;
    }
    if (char === '/' && source[index + 1] === '*') {
      const end = source.indexOf('*/', index + 2);
      const stop = end < 0 ? length : end + 2;
      for (let at = index; at < stop; at++) if (source[at] === '\n') line++;
      index = stop;
      continue;
    }
    if (char === '"' || char === "'") {
      index++;
      while (index < length && source[index] !== char && source[index] !== '\n') index += source[index] === '\\' ? 2 : 1;
      index++;
      previous = char;
      word = '';
      continue;
    }
    if (char === '`') {
      stack.push(-1);
      index++;
      continue;
    }
    if (char === '/' && (previous === '' || '(,=:[!&|?{};+-*%<>~^'.includes(previous) || regexAfter.has(word))) {
      index++;
      let inClass = false;
      while (index < length && source[index] !== '\n') {
        const at = source[index] as string;
        if (at === '\\') index++;
        else if (at === '[') inClass = true;
        else if (at === ']') inClass = false;
        else if (at === '/' && !inClass) break;
        index++;
      }
      index++;
      previous = '/';
      word = '';
      continue;
    }
    if (stack.length > 0) {
      if (char === '{') stack[stack.length - 1] = (stack[stack.length - 1] as number) + 1;
      else if (char === '}') {
        if (stack[stack.length - 1] === 0) {
          stack[stack.length - 1] = -1;
          index++;
          continue;
        }
        stack[stack.length - 1] = (stack[stack.length - 1] as number) - 1;
      }
    }
    if (/[\w$]/.test(char)) {
      let end = index + 1;
      while (end < length && /[\w$]/.test(source[end] as string)) end++;
      word = source.slice(index, end);
      previous = 'a';
      index = end;
      continue;
    }
    if (char !== ' ' && char !== '\t' && char !== '\r') {
      previous = char;
      word = '';
    }
    index++;
  }
  return inside;
}

export function parseChunk(source: string): ParsedChunk {
  const lines = source.split('\n');
  const imports: ChunkImport[] = [];
  let headerLines = 0;
  while (headerLines < lines.length) {
    const line = lines[headerLines] as string;
    if (!line.startsWith('import ') && !line.startsWith('import{') && !line.startsWith('import"')) break;
    const match = importPattern.exec(line);
    if (match === null) throw new Error(`gatesim: cannot read the import line ${JSON.stringify(line)}`);
    imports.push(importOf(match));
    headerLines++;
  }

  const regions: ChunkRegion[] = [];
  let open: { sourceFile: string; startLine: number } | undefined;
  let exportLine: number | undefined;
  let exports: ChunkExport[] = [];
  let unsupported: string | undefined;
  const starExports: { specifier: string; line: number }[] = [];
  const bodyImportLines: number[] = [];
  let templateLines: Set<number> | undefined;
  for (let index = headerLines; index < lines.length; index++) {
    const line = lines[index] as string;
    if (line.startsWith('//#region ')) {
      if (open !== undefined) regions.push({ ...open, endLine: index });
      open = { sourceFile: line.slice('//#region '.length).trim(), startLine: index };
    } else if (line.startsWith('//#endregion')) {
      if (open !== undefined) regions.push({ ...open, endLine: index });
      open = undefined;
    } else if (line.startsWith('import ') && importPattern.test(line)) {
      // An import inside the body (2026.7.1's re-export helpers): hoisted, as every import is; unless the line is text
      // of a template literal (2026.9.6's plugin loader writes modules from them).
      templateLines ??= linesInTemplateLiterals(source);
      if (templateLines.has(index)) continue;
      imports.push(importOf(importPattern.exec(line) as RegExpExecArray));
      bodyImportLines.push(index);
    } else if (line.startsWith('export * from ')) {
      const star = starExportPattern.exec(line);
      if (star === null) unsupported ??= `its module-level statement ${JSON.stringify(line.slice(0, 80))}`;
      else starExports.push({ specifier: star[1] as string, line: index });
    } else if (line.startsWith('export')) {
      const match = exportListPattern.exec(line);
      if (match === null || exportLine !== undefined) {
        // A line of a template literal's text that starts with `export` is no statement (linesInTemplateLiterals).
        templateLines ??= linesInTemplateLiterals(source);
        if (!templateLines.has(index)) unsupported ??= `its module-level statement ${JSON.stringify(line.slice(0, 80))}`;
      } else {
        exportLine = index;
        exports = parseSpecifiers(match[1] as string).map(({ left, right }) => ({ local: left, exported: right }));
      }
    }
  }
  if (open !== undefined) regions.push({ ...open, endLine: lines.length });
  return { imports, exports, starExports, bodyImportLines, regions, headerLines, exportLine, unsupported };
}

const pnpmStorePath = /^node_modules\/\.pnpm\/[^/]+\/node_modules\//;

/** The name a region's file is indexed and looked up by: a pnpm store path as the plain package path (header). */
export function canonicalSourceFile(sourceFile: string): string {
  return sourceFile.replace(pnpmStorePath, 'node_modules/');
}

const declarationPattern = /^(?:async\s+)?(?:function\*?\s*([\w$]+)\s*\(|(?:const|let|var|class)\s+([\w$]+))/;
/** `const { a, b: c, d = 1 } = ...` at module level (2026.9.6's session-event wake destructures its runtime singleton). */
const destructuringPattern = /^(?:const|let|var)\s*\{([^}]*)\}\s*=/;

/** The names a destructuring declaration's pattern binds (`a`, `b: c` binds c, `d = 1` binds d; no nested patterns). */
function destructuredNames(pattern: string): string[] {
  return pattern
    .split(',')
    .map((part) => part.trim().replace(/\s*=[\s\S]*$/, ''))
    .filter((part) => part.length > 0 && !part.startsWith('...'))
    .map((part) => /(?:^|:)\s*([\w$]+)$/.exec(part)?.[1])
    .filter((name): name is string => name !== undefined);
}

/** The line of each module-level declaration (a name declared at the start of a line), first one wins. */
function declarationLines(lines: readonly string[], from: number): Map<string, number> {
  const declared = new Map<string, number>();
  for (let index = from; index < lines.length; index++) {
    const line = lines[index] as string;
    const first = line.charCodeAt(0);
    // Module-level code is not indented: skip indented lines, closing braces and comments without a regex.
    if (first !== 97 && first !== 99 && first !== 102 && first !== 108 && first !== 118) continue; // a c f l v
    const destructured = destructuringPattern.exec(line);
    if (destructured !== null) {
      for (const name of destructuredNames(destructured[1] as string)) if (!declared.has(name)) declared.set(name, index);
      continue;
    }
    const match = declarationPattern.exec(line);
    const name = match?.[1] ?? match?.[2];
    if (name !== undefined && !declared.has(name)) declared.set(name, index);
  }
  return declared;
}

/** A real function (or constant) of a release, found in its chunks. */
export interface ResolvedExport {
  release: OpenclawRelease;
  sourceFile: string;
  /** The name in the source file. */
  name: string;
  /** The chunk file, relative to dist/. */
  chunk: string;
  /** The name the chunk exports it under (a letter, usually). */
  exportName: string;
  /** The name it has inside the chunk (the real name, or the real name with a `$n` suffix when two regions clash). */
  localName: string;
}

interface ReleaseIndex {
  /** sourceFile -> real name -> the chunks that declare and export it. */
  bySource: Map<string, Map<string, ResolvedExport[]>>;
  chunkCount: number;
}

const indexes = new Map<OpenclawRelease, ReleaseIndex>();

function buildIndex(release: OpenclawRelease): ReleaseIndex {
  const files = listReleaseChunks(release);
  if (files === undefined) throw workspaceMissing(release);
  const bySource = new Map<string, Map<string, ResolvedExport[]>>();
  for (const chunk of files) {
    const source = readReleaseChunk(release, chunk);
    if (!source.includes('//#region ')) continue;
    const parsed = parseChunk(source);
    if (parsed.exports.length === 0 || parsed.regions.length === 0) continue;
    const declared = declarationLines(source.split('\n'), parsed.headerLines);
    for (const { local, exported } of parsed.exports) {
      const line = declared.get(local);
      if (line === undefined) continue;
      const region = parsed.regions.find((candidate) => candidate.startLine <= line && line < candidate.endLine);
      if (region === undefined) continue;
      const name = local.replace(/\$\d+$/, '');
      const sourceFile = canonicalSourceFile(region.sourceFile);
      let names = bySource.get(sourceFile);
      if (names === undefined) {
        names = new Map();
        bySource.set(sourceFile, names);
      }
      let found = names.get(name);
      if (found === undefined) {
        found = [];
        names.set(name, found);
      }
      found.push({ release, sourceFile, name, chunk, exportName: exported, localName: local });
    }
  }
  return { bySource, chunkCount: files.length };
}

/** The index of a release (built on first use); throws OpenclawWorkspaceMissingError when it is not installed. */
export function releaseIndex(release: OpenclawRelease): ReleaseIndex {
  requireRelease(release);
  let index = indexes.get(release);
  if (index === undefined) {
    index = buildIndex(release);
    indexes.set(release, index);
  }
  return index;
}

/**
 * The chunk and export of (release, source file, real name). Throws OpenclawWorkspaceMissingError when the workspace
 * is not installed, OpenclawLookupError when the release has no such file or function (or several chunks export it).
 */
export function resolveOpenclawExport(release: OpenclawRelease, sourceFile: string, name: string): ResolvedExport {
  const index = releaseIndex(release);
  const names = index.bySource.get(canonicalSourceFile(sourceFile));
  if (names === undefined) {
    throw new OpenclawLookupError(release, sourceFile, name, `openclaw ${release} has no source file ${sourceFile} in its dist/ chunks (looking for ${name})`);
  }
  const found = names.get(name);
  if (found === undefined || found.length === 0) {
    const known = [...names.keys()].sort().join(', ');
    throw new OpenclawLookupError(release, sourceFile, name, `openclaw ${release} has no function ${name} in ${sourceFile} (that file exports ${known})`);
  }
  if (found.length > 1) {
    throw new OpenclawLookupError(release, sourceFile, name, `openclaw ${release} exports ${name} of ${sourceFile} from ${found.length} chunks (${found.map((entry) => entry.chunk).join(', ')}): ambiguous`);
  }
  return found[0] as ResolvedExport;
}

/** The source files of a release's chunks whose path contains `fragment` (to find a file that moved). */
export function findSourceFiles(release: OpenclawRelease, fragment: string): string[] {
  return [...releaseIndex(release).bySource.keys()].filter((file) => file.includes(fragment)).sort();
}

export { openclawReleases };
