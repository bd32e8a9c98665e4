// The determinism ban of docs/ARCHITECTURE.md section 2, enforced by scanning the source rather than by the linter, so
// it holds whatever the linter does. Every .ts or .mjs file under src/, sim/, scenarios/ and lib/ (except the exempt
// adapters to the real world below) must be free of the real clock, real randomness, real timers and real I/O modules.
// Comments are stripped first, so a comment may name a banned API; string contents are scanned (a banned API in a
// string is almost always SQL or code that will be evaluated, and the few false alarms are cheap to reword).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const repoRoot = fileURLToPath(new URL('../', import.meta.url));
const scannedDirectories = ['src', 'sim', 'scenarios', 'lib'];
const exempt = new Set([
  // The CLI's one adapter to the real world: wall clock, files, fresh seeds.
  'sim/cli/real.ts',
  // Module hooks for a real module (issue 8): they must name the fs, crypto, uuid and Date APIs they replace.
  'sim/real/hooks.mjs',
  // The host side of the OpenClaw loader (issue 22): it reads the pinned releases' chunks and must name the globals
  // and built-in modules it replaces for them.
  'sim/real/openclaw-hooks.mjs',
  // Its parts (one file per thing simulated) that name what they replace; the others stay under the ban.
  'sim/real/openclaw-hooks/builtins.mjs',
  'sim/real/openclaw-hooks/fs.mjs',
  'sim/real/openclaw-hooks/globals.mjs',
  'sim/real/openclaw-hooks/package-loader.mjs',
  'sim/real/openclaw-hooks/timers.mjs',
  'sim/real/openclaw-hooks/workspace.mjs',
  'sim/real/openclaw-hooks/world.mjs',
]);

const bannedModules = '(?:node:)?(?:fs|timers|net|crypto|perf_hooks)(?:/[\\w/]*)?';
const banned: { name: string; pattern: RegExp }[] = [
  { name: 'Date.now', pattern: /\bDate\s*\.\s*now\b/ },
  { name: 'new Date()', pattern: /\bnew\s+Date\s*\(\s*\)/ },
  { name: 'Date()', pattern: /(?<![\w$.]|new\s+)Date\s*\(/ },
  { name: 'performance.now', pattern: /\bperformance\s*\.\s*now\b/ },
  { name: 'Math.random', pattern: /\bMath\s*\.\s*random\b/ },
  { name: 'randomUUID', pattern: /\brandomUUID\b/ },
  { name: 'getRandomValues', pattern: /\bgetRandomValues\b/ },
  { name: 'setTimeout', pattern: /\bsetTimeout\b/ },
  { name: 'setInterval', pattern: /\bsetInterval\b/ },
  { name: 'setImmediate', pattern: /\bsetImmediate\b/ },
  { name: 'process.hrtime', pattern: /\bprocess\s*\.\s*hrtime\b/ },
  { name: 'banned import', pattern: new RegExp(`\\b(?:from|import)\\s*\\(?\\s*['"]${bannedModules}['"]`) },
  { name: 'banned require', pattern: new RegExp(`\\brequire\\s*\\(\\s*['"]${bannedModules}['"]`) },
  { name: "SQL datetime('now')", pattern: /\bdatetime\s*\(\s*'now'/i },
  { name: 'SQL CURRENT_TIMESTAMP', pattern: /\bCURRENT_(?:TIMESTAMP|DATE|TIME)\b/i },
  { name: 'SQL random()', pattern: /(?<![\w$.])random\s*\(\s*\)|\brandomblob\s*\(/i },
];

/**
 * Blank out // and /* comments, keeping line breaks (so line numbers survive) and string and template contents
 * (so `'http://x'` does not start a comment). Code inside `${...}` of a template is scanned as code. Regex literals
 * are not recognised; a quote inside one at worst ends the string state at the end of its line.
 */
function stripComments(source: string): string {
  let out = '';
  let state: 'code' | 'line' | 'block' | "'" | '"' | '`' = 'code';
  // Brace depth of each template substitution we are inside, innermost last.
  const templateDepths: number[] = [];
  let depth = 0;
  for (let i = 0; i < source.length; i++) {
    const c = source[i] as string;
    const next = source[i + 1];
    if (state === 'line') {
      if (c === '\n') {
        state = 'code';
        out += c;
      } else out += ' ';
    } else if (state === 'block') {
      if (c === '*' && next === '/') {
        state = 'code';
        out += '  ';
        i++;
      } else out += c === '\n' ? c : ' ';
    } else if (state === "'" || state === '"') {
      out += c;
      if (c === '\\') {
        out += next ?? '';
        i++;
      } else if (c === state || c === '\n') state = 'code';
    } else if (state === '`') {
      out += c;
      if (c === '\\') {
        out += next ?? '';
        i++;
      } else if (c === '`') state = 'code';
      else if (c === '$' && next === '{') {
        out += '{';
        i++;
        templateDepths.push(depth);
        depth++;
        state = 'code';
      }
    } else if (c === '/' && next === '/') {
      state = 'line';
      out += '  ';
      i++;
    } else if (c === '/' && next === '*') {
      state = 'block';
      out += '  ';
      i++;
    } else {
      out += c;
      if (c === "'" || c === '"' || c === '`') state = c;
      else if (c === '{') depth++;
      else if (c === '}') {
        depth--;
        if (templateDepths.length > 0 && templateDepths[templateDepths.length - 1] === depth) {
          templateDepths.pop();
          state = '`';
        }
      }
    }
  }
  return out;
}

/** Violations in one file's source, as `file:line: name: code`. */
function scanSource(file: string, source: string): string[] {
  const violations: string[] = [];
  stripComments(source)
    .split('\n')
    .forEach((line, index) => {
      for (const { name, pattern } of banned) {
        if (pattern.test(line)) violations.push(`${file}:${index + 1}: ${name}: ${line.trim()}`);
      }
    });
  return violations;
}

function sourceFiles(directory: string): string[] {
  const absolute = join(repoRoot, directory);
  let entries: string[];
  try {
    entries = readdirSync(absolute).sort();
  } catch {
    return [];
  }
  return entries.flatMap((entry) => {
    const path = join(directory, entry);
    if (statSync(join(repoRoot, path)).isDirectory()) return sourceFiles(path);
    return /\.(?:[cm]?ts|mjs)$/.test(entry) ? [path] : [];
  });
}

describe('determinism ban', () => {
  const files = scannedDirectories
    .flatMap((directory) => sourceFiles(directory))
    .map((path) => relative(repoRoot, join(repoRoot, path)).split('\\').join('/'))
    .filter((path) => !exempt.has(path));

  it('finds the kernel sources to scan', () => {
    expect(files).toContain('sim/kernel/scheduler.ts');
    expect(files).toContain('src/ports.ts');
    expect(files).not.toContain('sim/cli/real.ts');
    expect(files).not.toContain('sim/real/hooks.mjs');
    expect(files).not.toContain('sim/real/openclaw-hooks.mjs');
    expect(files).toContain('sim/real/openclaw/instance.ts');
    expect(files).toContain('sim/real/bindings.ts');
  });

  it('no file under src/, sim/ or scenarios/ uses a banned API', () => {
    const violations = files.flatMap((file) => scanSource(file, readFileSync(join(repoRoot, file), 'utf8')));
    expect(violations).toEqual([]);
  });

  it('catches each banned API, names the line, and ignores comments', () => {
    const sample = [
      '// Date.now() in a comment is fine, and so is setTimeout',
      'const a = Date.now();',
      '/* a block comment naming Math.random()',
      '   over two lines, with new Date() */ const b = Math.random();',
      "const url = 'http://example.com'; const c = performance.now();",
      'const d = new Date();',
      'const e = crypto.randomUUID();',
      'setTimeout(() => {}, 1);',
      'const f = setInterval;',
      'setImmediate(go);',
      'const g = process.hrtime.bigint();',
      "import { readFileSync } from 'node:fs';",
      "import { setTimeout as sleep } from 'timers/promises';",
      "import net from 'net';",
      "const h = await import('node:crypto');",
      "const i = require('fs');",
      'const j = `${Date.now()} in a template substitution`;',
      "db.run(\"INSERT INTO t VALUES (datetime('now'))\");",
      "db.run('INSERT INTO t VALUES (CURRENT_TIMESTAMP, random())');",
      'const k = Date();',
      'const ok = new Date(0); const fine = ctx.random.int(0, 1); ctx.timers.setTimer(1, fn);',
      "import { x } from './fs.ts'; import y from 'fast-check';",
    ].join('\n');
    const found = scanSource('sample.ts', sample).map((violation) => violation.split(': ').slice(0, 2).join(': '));
    expect(found).toEqual([
      'sample.ts:2: Date.now',
      'sample.ts:4: Math.random',
      'sample.ts:5: performance.now',
      'sample.ts:6: new Date()',
      'sample.ts:7: randomUUID',
      'sample.ts:8: setTimeout',
      'sample.ts:9: setInterval',
      'sample.ts:10: setImmediate',
      'sample.ts:11: process.hrtime',
      'sample.ts:12: banned import',
      'sample.ts:13: setTimeout',
      'sample.ts:13: banned import',
      'sample.ts:14: banned import',
      'sample.ts:15: banned import',
      'sample.ts:16: banned require',
      'sample.ts:17: Date.now',
      "sample.ts:18: SQL datetime('now')",
      'sample.ts:19: SQL CURRENT_TIMESTAMP',
      'sample.ts:19: SQL random()',
      'sample.ts:20: Date()',
    ]);
  });

  it('keeps line numbers and string contents when stripping comments', () => {
    const source = "a /* one\ntwo */ b // three\n'//not a comment' `x${'/*'}y` c";
    const stripped = stripComments(source);
    expect(stripped.split('\n')).toHaveLength(3);
    expect(stripped).not.toContain('one');
    expect(stripped).not.toContain('three');
    expect(stripped).toContain("'//not a comment'");
    expect(stripped).toContain("`x${'/*'}y` c");
  });
});
