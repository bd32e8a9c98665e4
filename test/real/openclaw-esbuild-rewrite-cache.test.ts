// sim/real/openclaw-hooks/package-loader.mjs rewrittenToCommonJs (exported by sim/real/openclaw-hooks.mjs): esbuild's rewrite of a package's ES module file to
// CommonJS, kept on disk between processes (issue 46). The code is the same with the cache cold, warm and off; an entry
// is named by esbuild's version, the options and the source, and one whose text is not what its header says (edited,
// or another file's) is rewritten afresh, never used.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { rewrittenToCommonJs } from '../../sim/real/openclaw-hooks.mjs';
import { scratchDir } from '../cli/support.ts';

const options = { format: 'cjs', platform: 'node', target: 'node20', sourcefile: '/gatesim/workspace/node_modules/x/index.js', logLevel: 'silent' };
const source = 'export const answer = 42;\nexport default function hello(name) { return `hello ${name}`; }\n';
const saved = process.env.GATESIM_ESBUILD_CACHE;

afterEach(() => {
  if (saved === undefined) delete process.env.GATESIM_ESBUILD_CACHE;
  else process.env.GATESIM_ESBUILD_CACHE = saved;
});

describe("the on-disk cache of esbuild's rewrites", () => {
  it('gives the same code cold, warm and off, one entry per source', () => {
    const dir = scratchDir();
    process.env.GATESIM_ESBUILD_CACHE = 'off';
    const uncached = rewrittenToCommonJs(source, options);
    expect(uncached).toContain('answer');
    process.env.GATESIM_ESBUILD_CACHE = dir;
    expect(rewrittenToCommonJs(source, options)).toBe(uncached);
    expect(readdirSync(dir)).toHaveLength(1);
    expect(rewrittenToCommonJs(source, options)).toBe(uncached);
    // Another source, or the same under other options, is an entry of its own.
    rewrittenToCommonJs(`${source}export const more = 1;\n`, options);
    rewrittenToCommonJs(source, { ...options, sourcefile: '/gatesim/workspace/node_modules/y/index.js' });
    expect(readdirSync(dir).filter((name) => name.endsWith('.js'))).toHaveLength(3);
  });

  it('never uses an entry whose text is not what its header says: it is rewritten afresh', () => {
    const dir = scratchDir();
    process.env.GATESIM_ESBUILD_CACHE = dir;
    const code = rewrittenToCommonJs(source, options);
    const [entry] = readdirSync(dir);
    if (entry === undefined) throw new Error('no entry written');
    const path = join(dir, entry);
    const [header, ...rest] = readFileSync(path, 'utf8').split('\n');
    // Edited code under the old header: not used, and written again.
    writeFileSync(path, [header, ...rest].join('\n').replace('42', '43'));
    expect(rewrittenToCommonJs(source, options)).toBe(code);
    expect(readFileSync(path, 'utf8')).toContain('42');
    // A header only, or nothing: the same.
    writeFileSync(path, `${header}\n`);
    expect(rewrittenToCommonJs(source, options)).toBe(code);
    writeFileSync(path, '');
    expect(rewrittenToCommonJs(source, options)).toBe(code);
    expect(readFileSync(path, 'utf8')).toBe(`${header}\n${rest.join('\n')}`);
  });

  it('rewrites as before where the folder cannot be written', () => {
    const dir = scratchDir();
    const file = join(dir, 'a-file');
    writeFileSync(file, '');
    // A folder below a file cannot be made.
    process.env.GATESIM_ESBUILD_CACHE = join(file, 'cache');
    expect(rewrittenToCommonJs(source, options)).toContain('answer');
  });
});
