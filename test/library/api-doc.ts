// Generates docs/API.md from the TSDoc of the public entries (lib/index.ts for `gatesim`, lib/vitest.ts for
// `gatesim/vitest`) with the TypeScript compiler's own reader, so the page matches the code. `npm run docs:api`
// rewrites the page; test/library/public-api-is-documented.test.ts fails when it is stale or an export has no TSDoc.
import { writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = fileURLToPath(new URL('../../', import.meta.url));
const entries = [
  { module: 'gatesim', file: 'lib/index.ts' },
  { module: 'gatesim/vitest', file: 'lib/vitest.ts' },
];

const sections: { title: string; prefix: string }[] = [
  { title: 'Running scenarios', prefix: 'lib/' },
  { title: 'Runs, campaigns and seed strings (lower level)', prefix: 'sim/run/harness.ts' },
  { title: 'Runs, campaigns and seed strings (lower level)', prefix: 'sim/run/generate.ts' },
  { title: 'Runs, campaigns and seed strings (lower level)', prefix: 'sim/cli/' },
  { title: 'Runs, campaigns and seed strings (lower level)', prefix: 'sim/kernel/' },
  { title: 'Runs, campaigns and seed strings (lower level)', prefix: 'sim/run/coverage.ts' },
  { title: 'Scenarios and plans', prefix: 'scenarios/' },
  { title: 'Scenarios and plans', prefix: 'sim/run/plan.ts' },
  { title: 'Scenarios and plans', prefix: 'node_modules/fast-check' },
  { title: 'Invariants and what they read', prefix: 'sim/checkers/' },
  { title: 'The ground-truth ledger', prefix: 'sim/world/' },
  { title: 'Ports (what a component is written against)', prefix: 'src/ports.ts' },
  { title: 'The model, its components and its protocol', prefix: 'src/' },
];

/** One public export: its name, kind, where it is declared, its TSDoc and a signature line. */
export interface ApiEntry {
  module: string;
  name: string;
  kind: string;
  file: string;
  doc: string;
  signature: string;
  members: { name: string; doc: string; type: string }[];
}

const typeFormat = ts.TypeFormatFlags.NoTruncation | ts.TypeFormatFlags.UseAliasDefinedOutsideCurrentScope;

function kindOf(declaration: ts.Declaration): string {
  if (ts.isFunctionDeclaration(declaration)) return 'function';
  if (ts.isClassDeclaration(declaration)) return 'class';
  if (ts.isInterfaceDeclaration(declaration)) return 'interface';
  if (ts.isTypeAliasDeclaration(declaration)) return 'type';
  if (ts.isVariableDeclaration(declaration)) return 'const';
  return 'value';
}

function docOf(symbol: ts.Symbol, checker: ts.TypeChecker): string {
  const own = ts.displayPartsToString(symbol.getDocumentationComment(checker)).trim();
  if (own.length > 0) return own;
  // A re-export documented at its export statement (`/** ... */ export { default as fc } from 'fast-check'`).
  const specifier = symbol.declarations?.[0];
  if (specifier === undefined || !ts.isExportSpecifier(specifier)) return '';
  const comment = ts.getJSDocCommentsAndTags(specifier.parent.parent)[0];
  return comment !== undefined && ts.isJSDoc(comment) ? (ts.getTextOfJSDocComment(comment.comment) ?? '').trim() : '';
}

function oneLine(text: string, max = 160): string {
  const flat = links(text).replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

function signatureOf(name: string, symbol: ts.Symbol, declaration: ts.Declaration, checker: ts.TypeChecker): string {
  const kind = kindOf(declaration);
  const type = checker.getTypeOfSymbolAtLocation(symbol, declaration);
  if (kind === 'function' || (kind === 'const' && type.getCallSignatures().length > 0)) {
    const signature = type.getCallSignatures()[0];
    return signature === undefined ? name : `${name}${checker.signatureToString(signature, undefined, typeFormat)}`;
  }
  if (kind === 'type' && ts.isTypeAliasDeclaration(declaration)) return `type ${name} = ${oneLine(declaration.type.getText())}`;
  if (kind === 'const') return `const ${name}: ${oneLine(checker.typeToString(type, undefined, typeFormat))}`;
  if (kind === 'class') return `class ${name}`;
  return `interface ${name}`;
}

function membersOf(symbol: ts.Symbol, declaration: ts.Declaration, checker: ts.TypeChecker): ApiEntry['members'] {
  if (!ts.isInterfaceDeclaration(declaration)) return [];
  return checker.getPropertiesOfType(checker.getDeclaredTypeOfSymbol(symbol)).map((member) => {
    const memberDeclaration = member.valueDeclaration ?? member.declarations?.[0];
    const written = memberDeclaration !== undefined && (ts.isPropertySignature(memberDeclaration) || ts.isMethodSignature(memberDeclaration)) ? memberSignature(memberDeclaration) : undefined;
    const type = written ?? (memberDeclaration === undefined ? '' : checker.typeToString(checker.getTypeOfSymbolAtLocation(member, memberDeclaration), undefined, typeFormat));
    const optional = (member.flags & ts.SymbolFlags.Optional) !== 0 ? '?' : '';
    return { name: `${member.getName()}${optional}`, doc: oneLine(docOf(member, checker), 200), type: oneLine(type, 120) };
  });
}

/** A member as written: `T` for a property, `(params) => T` for a method. */
function memberSignature(member: ts.PropertySignature | ts.MethodSignature): string | undefined {
  if (ts.isPropertySignature(member)) return member.type?.getText();
  const params = member.parameters.map((parameter) => parameter.getText()).join(', ');
  return `(${params}) => ${member.type?.getText() ?? 'void'}`;
}

/** Every export of the public entries, in declaration order of the entry files. */
export function apiEntries(): ApiEntry[] {
  const program = ts.createProgram(
    entries.map((entry) => `${root}${entry.file}`),
    { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, target: ts.ScriptTarget.ES2022, allowImportingTsExtensions: true, noEmit: true, strict: true },
  );
  const checker = program.getTypeChecker();
  const out: ApiEntry[] = [];
  for (const entry of entries) {
    const source = program.getSourceFile(`${root}${entry.file}`);
    const moduleSymbol = source === undefined ? undefined : checker.getSymbolAtLocation(source);
    if (moduleSymbol === undefined) throw new Error(`cannot read ${entry.file}`);
    for (const exported of checker.getExportsOfModule(moduleSymbol)) {
      const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
      const declaration = symbol.declarations?.[0];
      if (declaration === undefined) continue;
      const name = exported.getName();
      const ownDoc = docOf(exported, checker);
      const file = relative(root, declaration.getSourceFile().fileName);
      out.push({
        module: entry.module,
        name,
        kind: file.startsWith('node_modules/') ? 'namespace' : kindOf(declaration),
        file,
        doc: ownDoc.length > 0 ? ownDoc : docOf(symbol, checker),
        signature: file.startsWith('node_modules/') ? `${name} (fast-check)` : signatureOf(name, symbol, declaration, checker),
        members: membersOf(symbol, declaration, checker),
      });
    }
  }
  return out;
}

/** `{@link name}` as code. */
function links(text: string): string {
  return text.replace(/\{@link\s+([^}\s]+)\s*\}/g, '`$1`');
}

function sectionOf(file: string): string {
  return sections.find((section) => file.startsWith(section.prefix))?.title ?? 'Other';
}

/** docs/API.md, from the entries. */
export function apiMarkdown(all: ApiEntry[] = apiEntries()): string {
  const lines = [
    '# gatesim API',
    '',
    'Generated from the TSDoc of the public entries by `npm run docs:api` (test/library/api-doc.ts); do not edit by hand.',
    'Import from `gatesim` (lib/index.ts) or `gatesim/vitest` (lib/vitest.ts); nothing else in the package is public.',
    'The README section "Use gatesim in your gateway" shows them in use.',
  ];
  for (const module of entries.map((entry) => entry.module)) {
    const mine = all.filter((entry) => entry.module === module);
    const titles = [...new Set(sections.map((section) => section.title)), 'Other'].filter((title) => mine.some((entry) => sectionOf(entry.file) === title));
    lines.push('', `## \`${module}\``);
    for (const title of titles) {
      if (module !== 'gatesim/vitest') lines.push('', `### ${title}`);
      for (const entry of mine.filter((candidate) => sectionOf(candidate.file) === title)) {
        lines.push('', `#### \`${entry.name}\` (${entry.kind})`, '', '```ts', entry.signature, '```', '', links(entry.doc) || '(undocumented)');
        if (entry.members.length > 0) {
          lines.push('');
          for (const member of entry.members) lines.push(`- \`${member.name}\`: \`${member.type.replace(/`/g, "'")}\`${member.doc.length > 0 ? ` — ${member.doc}` : ''}`);
        }
      }
    }
  }
  return `${lines.join('\n')}\n`;
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(`${root}docs/API.md`, apiMarkdown());
  process.stdout.write('wrote docs/API.md\n');
}
