// Every markdown file the repository cites is one it has (issue 47). A comment, a doc or a test that points a reader
// at a document kept outside the repository (the project's founding brief, its notes on the real systems) sends
// someone who cloned it to a file they cannot open; the project's own documents are README.md, BENCHMARKS.md and
// docs/ (docs/ARCHITECTURE.md, docs/MODEL.md, docs/API.md). This tidy test scans the tracked text files (and new ones not yet committed, gitignored ones left out)
// for names ending in `.md` and fails naming file:line for each that resolves to no file of the repository. A name
// resolves against the citing file's folder, the repository root and docs/. Names that are not citations of a file
// of ours (a file a real system reads, a file a test writes) are allowed only through the short list below.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, extname, isAbsolute, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../', import.meta.url));

const scannedExtensions = new Set(['.ts', '.mts', '.mjs', '.cjs', '.js', '.md', '.yml', '.yaml', '.json']);
const skippedFolders = ['node_modules', 'dist', 'artifacts', 'scratch', 'coverage', '.git'];

/** Names ending in `.md` that are no citation of a file of this repository, each with the reason. */
const notCitations: { names: readonly string[]; reason: string }[] = [
  { names: ['HEARTBEAT.md', 'heartbeat.md'], reason: "the workspace file OpenClaw's heartbeat prompt tells the agent to read (a text the model sends)" },
  { names: ['summary.md'], reason: 'a file the nightly workflow test writes into a temporary folder' },
  { names: ['docs/db-session.md'], reason: "nanoclaw's own document, cited with nanoclaw's source files in docs/MODEL.md" },
];

/** The files to scan: tracked and new ones (gitignored left out), or a walk of the tree outside a git work tree. */
function scannedFiles(): string[] {
  let listed: string[];
  try {
    listed = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })
      .split('\0')
      .filter((path) => path.length > 0);
  } catch {
    listed = walk('');
  }
  return listed.filter((path) => {
    if (path.split('/').some((part) => skippedFolders.includes(part))) return false;
    if (/(^|\/)(package-lock\.json|npm-shrinkwrap\.json|yarn\.lock|pnpm-lock\.yaml)$/.test(path)) return false;
    return scannedExtensions.has(extname(path)) && existsSync(join(root, path));
  });
}

function walk(dir: string): string[] {
  return readdirSync(join(root, dir)).flatMap((name) => {
    if (skippedFolders.includes(name)) return [];
    const path = dir === '' ? name : `${dir}/${name}`;
    return statSync(join(root, path)).isDirectory() ? walk(path) : [path];
  });
}

/** A name ending in `.md`, taken whole: not a piece of a longer path, not followed by more of a name. */
const citationPattern = /(?<![\w./-])[\w./-]*[\w-]\.md(?!\.?[\w/-])/g;

/** Whether `name`, cited in `file`, resolves to a file of the repository (inside it, outside node_modules). */
export function resolvesInRepository(file: string, name: string, exists: (path: string) => boolean): boolean {
  const bases = name.includes('/') && !name.startsWith('.') ? ['', dirname(file)] : [dirname(file), '', 'docs'];
  return bases.some((base) => {
    const path = relative(root, resolve(root, base, name));
    if (path.startsWith('..') || isAbsolute(path) || path.split('/').includes('node_modules')) return false;
    return exists(path);
  });
}

/** The lines of `text` (the contents of `file`) that cite a markdown file the repository does not have. */
export function deadCitations(file: string, text: string, exists: (path: string) => boolean): string[] {
  const allowed = new Set(notCitations.flatMap((entry) => entry.names));
  const out: string[] = [];
  text.split('\n').forEach((line, index) => {
    for (const match of line.matchAll(citationPattern)) {
      const name = match[0];
      // A web address (https://host/path/FILE.md) points outside the repository on purpose.
      if (name.startsWith('//') || line.slice(0, match.index).endsWith(':')) continue;
      if (allowed.has(name)) continue;
      if (!resolvesInRepository(file, name, exists)) out.push(`${file}:${index + 1}: cites ${name}, which the repository does not have`);
    }
  });
  return out;
}

const onDisk = (path: string): boolean => existsSync(join(root, path)) && statSync(join(root, path)).isFile();

describe('the repository cites only markdown files it has', () => {
  const files = scannedFiles();

  it('scans the docs, the code and the tests', () => {
    for (const path of ['README.md', 'docs/MODEL.md', 'docs/ARCHITECTURE.md', 'eslint.config.js', 'src/turn.ts', 'sim/cli/main.ts', 'test/layout-directions.test.ts']) {
      expect(files, path).toContain(path);
    }
  });

  it('finds every cited markdown file', () => {
    expect(files.flatMap((path) => deadCitations(path, readFileSync(join(root, path), 'utf8'), onDisk))).toEqual([]);
  });

  // The examples build their names from stems, so that this file does not cite what it plants.
  const md = (stem: string): string => `${stem}.md`;

  it('catches a citation of a file the repository lacks (the rule can fail)', () => {
    const text = [
      `// The determinism rules (${md('DESIGN')} section 2).`,
      `// See ${md('docs/ARCHITECTURE')} section 2, ${md('README')} and ${md('../../docs/MODEL')}; ${md('docs/API')} lists the exports.`,
      `Every fact of \`${md('../shared/REFERENCE')}\` and of ${md('STYLE')}.`,
      `Read ${md('HEARTBEAT')} if it exists; ${md('https://github.com/owner/repo/blob/main/CONTRIBUTING')} is a web page.`,
    ].join('\n');
    expect(deadCitations('test/cli/example.test.ts', text, onDisk)).toEqual([
      `test/cli/example.test.ts:1: cites ${md('DESIGN')}, which the repository does not have`,
      `test/cli/example.test.ts:3: cites ${md('../shared/REFERENCE')}, which the repository does not have`,
      `test/cli/example.test.ts:3: cites ${md('STYLE')}, which the repository does not have`,
    ]);
  });

  it('resolves a bare name against the root and docs/, and a relative path against the citing file', () => {
    expect(resolvesInRepository('src/turn.ts', md('MODEL'), onDisk)).toBe(true);
    expect(resolvesInRepository('docs/MODEL.md', md('BENCHMARKS'), onDisk)).toBe(true);
    expect(resolvesInRepository('test/variants/x.test.ts', md('../../docs/MODEL'), onDisk)).toBe(true);
    expect(resolvesInRepository('docs/MODEL.md', md('../shared/DESIGN'), onDisk)).toBe(false);
    expect(resolvesInRepository('README.md', md('node_modules/fast-check/README'), onDisk)).toBe(false);
  });
});
