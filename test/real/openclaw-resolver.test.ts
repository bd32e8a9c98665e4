// The resolver of sim/real/openclaw: every function of every component gatesim uses is found in each pinned release
// that has the component by (release, source file, real name), in the chunk whose `//#region <file>` declares it and
// whose closing export line exports it (2026.9.6's chunks are `.mjs`); a name or file a release lacks, or a release
// gatesim does not pin, is a clear error naming them. Without the openclaw/ workspace the suite skips, naming
// `npm ci --prefix openclaw`. (Resolving reads and parses chunks only, so it runs on any Node.)
import { describe, expect, it } from 'vitest';
import {
  findSourceFiles,
  openclawComponentNames,
  OpenclawLookupError,
  openclawMissingMessage,
  openclawPinnedReleases,
  OpenclawWorkspaceMissingError,
  parseChunk,
  resolveOpenclawComponent,
  resolveOpenclawExport,
} from '../../sim/real/openclaw/index.ts';
import { canonicalSourceFile } from '../../sim/real/openclaw/chunks.ts';
import { openclawGatewayParts, openclawMissingPartsOf } from '../../sim/real/openclaw/choice.ts';
import { componentSource, releasesWithComponent } from '../../sim/real/openclaw/components.ts';
import { readReleaseChunk } from '../../sim/real/openclaw-hooks.mjs';
import { openclawMissing } from './openclaw-support.ts';

const missing = openclawMissing('real OpenClaw tests', openclawPinnedReleases);

describe('the missing-workspace error', () => {
  it('names the install command', () => {
    expect(new OpenclawWorkspaceMissingError('2026.4.24').message).toContain('npm ci --prefix openclaw');
    expect(openclawMissingMessage).toContain('npm ci --prefix openclaw');
  });
});

describe('parsing a chunk', () => {
  it('reads the import header, the regions and the closing export line', () => {
    const source = [
      'import { a as helper, b } from "./other-X1.js";',
      'import "./side-Y2.js";',
      'import fs, { constants } from "node:fs";',
      '//#region src/one.ts',
      'function first() { return helper(); }',
      'const LIMIT = 20;',
      '//#endregion',
      '//#region src/two.ts',
      'function first$1() {}',
      '//#endregion',
      'export { first as n, LIMIT as t, first$1 as x };',
    ].join('\n');
    const parsed = parseChunk(source);
    expect(parsed.imports).toEqual([
      { specifier: './other-X1.js', defaultLocal: undefined, namespaceLocal: undefined, named: [{ imported: 'a', local: 'helper' }, { imported: 'b', local: 'b' }] },
      { specifier: './side-Y2.js', defaultLocal: undefined, namespaceLocal: undefined, named: [] },
      { specifier: 'node:fs', defaultLocal: 'fs', namespaceLocal: undefined, named: [{ imported: 'constants', local: 'constants' }] },
    ]);
    expect(parsed.regions).toEqual([
      { sourceFile: 'src/one.ts', startLine: 3, endLine: 6 },
      { sourceFile: 'src/two.ts', startLine: 7, endLine: 9 },
    ]);
    expect(parsed.exports).toEqual([
      { local: 'first', exported: 'n' },
      { local: 'LIMIT', exported: 't' },
      { local: 'first$1', exported: 'x' },
    ]);
    expect(parsed.headerLines).toBe(3);
    expect(parsed.exportLine).toBe(10);
    expect(parsed.unsupported).toBeUndefined();
  });

  it('marks a chunk that ends in another shape as one the loader cannot instantiate', () => {
    expect(parseChunk('//#region src/a.ts\nconst x = 1;\n//#endregion\nexport default require_x();\nexport { x as t };').unsupported).toContain('export default');
  });
});

describe('region names', () => {
  it('a pnpm store path is looked up as the plain package path; OpenClaw files and workspace packages as they are', () => {
    expect(canonicalSourceFile('node_modules/.pnpm/@openclaw+fs-safe@0.18.1/node_modules/@openclaw/fs-safe/dist/file-lock-sync.js')).toBe('node_modules/@openclaw/fs-safe/dist/file-lock-sync.js');
    expect(canonicalSourceFile('node_modules/.pnpm/google-auth-library@11.0.2_supports-color@10.2.2/node_modules/google-auth-library/build/src/index.js')).toBe(
      'node_modules/google-auth-library/build/src/index.js',
    );
    expect(canonicalSourceFile('node_modules/@openclaw/fs-safe/dist/replace-file.js')).toBe('node_modules/@openclaw/fs-safe/dist/replace-file.js');
    expect(canonicalSourceFile('packages/session-url-contract/src/session-key-normalization.ts')).toBe('packages/session-url-contract/src/session-key-normalization.ts');
    expect(canonicalSourceFile('src/infra/system-events.ts')).toBe('src/infra/system-events.ts');
  });
});

describe.skipIf(missing)('resolving real OpenClaw functions', () => {
  for (const name of openclawComponentNames) {
    for (const release of releasesWithComponent(name)) {
      const { sourceFile, functions, also = [] } = componentSource(name, release);
      it(`${release} ${name}: ${[...functions, ...also.map((extra) => extra.name)].join(', ')} in ${sourceFile}`, () => {
        const resolved = resolveOpenclawComponent(release, name);
        expect(resolved.map((entry) => entry.name)).toEqual([...functions, ...also.map((extra) => extra.name)]);
        for (const [index, entry] of resolved.entries()) {
          const file = index < functions.length ? sourceFile : (also[index - functions.length]?.sourceFile as string);
          expect(entry).toMatchObject({ release, sourceFile: file });
          // The chunk really declares it in that file's region and exports it under that letter.
          const parsed = parseChunk(readReleaseChunk(release, entry.chunk));
          expect(parsed.exports).toContainEqual({ local: entry.localName, exported: entry.exportName });
          expect(parsed.regions.map((region) => canonicalSourceFile(region.sourceFile))).toContain(file);
        }
      });
    }
  }

  it('every component a release lacks is one of the parts choice.ts says it lacks, with why', () => {
    // A part and its component share a name.
    for (const release of openclawPinnedReleases) {
      const lacked = openclawGatewayParts.filter((part) => !releasesWithComponent(part).includes(release));
      expect(openclawMissingPartsOf(release).map((missingPart) => missingPart.part), release).toEqual(lacked);
    }
    expect(() => componentSource('session-file-repair', '2026.9.6')).toThrow(OpenclawLookupError);
  });

  it('2026.9.6 ships .mjs chunks, and its pnpm-store regions resolve by the package path', () => {
    expect(resolveOpenclawExport('2026.9.6', 'src/infra/system-events.ts', 'enqueueSystemEvent').chunk).toMatch(/^system-events-[\w-]+\.mjs$/);
    expect(resolveOpenclawExport('2026.8.1', 'src/infra/system-events.ts', 'enqueueSystemEvent').chunk).toMatch(/^system-events-[\w-]+\.js$/);
    // zod's parse.js: 2026.9.6's region names its pnpm store path, 2026.8.1's the package path; one lookup finds both.
    const viaStore = resolveOpenclawExport('2026.9.6', 'node_modules/.pnpm/zod@4.6.5/node_modules/zod/v4/classic/parse.js', 'safeParse');
    expect(viaStore.sourceFile).toBe('node_modules/zod/v4/classic/parse.js');
    expect(viaStore.chunk).toMatch(/^schemas-[\w-]+\.mjs$/);
    expect(resolveOpenclawExport('2026.9.6', 'node_modules/zod/v4/classic/parse.js', 'safeParse')).toEqual(viaStore);
    expect(resolveOpenclawExport('2026.8.1', 'node_modules/zod/v4/classic/parse.js', 'safeParse').chunk).toMatch(/^schemas-[\w-]+\.js$/);
    expect(findSourceFiles('2026.9.6', 'session-key-normalization')).toContain('packages/session-url-contract/src/session-key-normalization.ts');
  });

  it('2026.8.1 renamed the run attempt\'s prompt helpers (attempt-prompt-helpers.ts) and 2026.9.6 added the session-event wake', () => {
    expect(findSourceFiles('2026.8.1', 'run/attempt.prompt-helpers')).toEqual([]);
    expect(findSourceFiles('2026.8.1', 'run/attempt-prompt-helpers')).toEqual(['src/agents/embedded-agent-runner/run/attempt-prompt-helpers.ts']);
    expect(findSourceFiles('2026.8.1', 'session-event-wake')).toEqual([]);
    expect(() => resolveOpenclawExport('2026.9.6', 'src/infra/heartbeat-wake.ts', 'requestHeartbeat')).toThrow(/openclaw 2026\.9\.6 has no function requestHeartbeat in src\/infra\/heartbeat-wake\.ts/);
    expect(findSourceFiles('2026.9.6', 'session-file-repair')).toEqual([]);
  });

  it('finds the system-event queue in its own chunk in both releases, under different letters', () => {
    const older = resolveOpenclawExport('2026.4.24', 'src/infra/system-events.ts', 'enqueueSystemEvent');
    const newer = resolveOpenclawExport('2026.7.1', 'src/infra/system-events.ts', 'enqueueSystemEvent');
    expect(older.chunk).toMatch(/^system-events-[\w-]+\.js$/);
    expect(newer.chunk).toMatch(/^system-events-[\w-]+\.js$/);
    expect(older.chunk).not.toBe(newer.chunk);
  });

  it('says which release lacks a function, in which file, and what that file has', () => {
    const lookup = () => resolveOpenclawExport('2026.7.1', 'src/infra/heartbeat-wake.ts', 'requestHeartbeatNow');
    expect(lookup).toThrow(OpenclawLookupError);
    expect(lookup).toThrow(/openclaw 2026\.7\.1 has no function requestHeartbeatNow in src\/infra\/heartbeat-wake\.ts \(that file exports .*requestHeartbeat\b/);
    expect(() => resolveOpenclawExport('2026.4.24', 'src/infra/heartbeat-wake.ts', 'requestHeartbeat')).toThrow(
      /openclaw 2026\.4\.24 has no function requestHeartbeat in src\/infra\/heartbeat-wake\.ts/,
    );
    expect(() => resolveOpenclawExport('2026.4.24', 'src/infra/system-events.ts', 'noSuchFunction')).toThrow(
      /openclaw 2026\.4\.24 has no function noSuchFunction in src\/infra\/system-events\.ts/,
    );
  });

  it('says which release lacks a source file (2026.7.1 moved the run attempt out of pi-embedded-runner)', () => {
    expect(() => resolveOpenclawExport('2026.7.1', 'src/agents/pi-embedded-runner/run/attempt.prompt-helpers.ts', 'mergeOrphanedTrailingUserPrompt')).toThrow(
      /openclaw 2026\.7\.1 has no source file src\/agents\/pi-embedded-runner\/run\/attempt\.prompt-helpers\.ts in its dist\/ chunks \(looking for mergeOrphanedTrailingUserPrompt\)/,
    );
    expect(findSourceFiles('2026.7.1', 'run/attempt.prompt-helpers')).toEqual(['src/agents/embedded-agent-runner/run/attempt.prompt-helpers.ts']);
  });

  it('refuses a release gatesim does not pin', () => {
    expect(() => resolveOpenclawExport('2026.7.34' as never, 'src/infra/system-events.ts', 'enqueueSystemEvent')).toThrow(
      /openclaw 2026\.7\.34 is not a pinned release \(gatesim pins 2026\.4\.24, 2026\.7\.1, 2026\.7\.35, 2026\.8\.1, 2026\.9\.6\)/,
    );
  });
});
