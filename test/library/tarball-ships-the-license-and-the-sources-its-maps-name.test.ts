// What `npm pack` puts in the tarball besides dist/ and bin/: the MIT LICENSE that package.json's "license" names, and
// the TypeScript sources (lib/, sim/, src/, scenarios/) that dist/'s source maps name, so that a stack frame of the
// installed package (node --enable-source-maps, vitest, a debugger) points at a file it ships. The maps name the
// sources rather than embed them (no inlineSources): one copy of each source, and the file a frame names exists.
// Nothing else of the repository ships (tests, benchmarks, docs). The list is npm's own (`npm pack --dry-run --json`,
// scripts off, so nothing is built); the packed-and-installed test checks the maps of a real tarball.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));

function packedFiles(): string[] {
  const env = { ...process.env, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' };
  const result = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8', env });
  expect(result.status, result.stderr).toBe(0);
  const [packed] = JSON.parse(result.stdout) as { files: { path: string }[] }[];
  return (packed?.files ?? []).map((file) => file.path);
}

function sourcesUnder(dir: string): string[] {
  return readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .map((file) => `${dir}/${file}`);
}

describe('the tarball', () => {
  const files = packedFiles();

  it('ships the MIT LICENSE of the gatesim authors', () => {
    expect(files).toContain('LICENSE');
    const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { license: string };
    expect(manifest.license).toBe('MIT');
    const license = readFileSync(join(root, 'LICENSE'), 'utf8');
    expect(license).toMatch(/^MIT License\n\nCopyright \(c\) 2026 the gatesim authors\n/);
  });

  it('ships every source the build compiles, which its source maps name', () => {
    const build = JSON.parse(readFileSync(join(root, 'tsconfig.build.json'), 'utf8')) as { compilerOptions: Record<string, unknown>; include: string[] };
    expect(build.compilerOptions).toMatchObject({ sourceMap: true, rootDir: '.', outDir: 'dist' });
    expect(build.compilerOptions.inlineSources).toBeUndefined();
    const sources = build.include.flatMap(sourcesUnder);
    expect(sources.length).toBeGreaterThan(100);
    expect(sources.filter((source) => !files.includes(source))).toEqual([]);
  });

  it('ships nothing of the tests, benchmarks, docs or workspaces', () => {
    expect(files.filter((file) => /^(test|bench|docs|examples|real|openclaw|scripts)\//.test(file))).toEqual([]);
  });
});
