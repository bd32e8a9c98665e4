// What loading handleNodeEvent (src/gateway/server-node-events.ts) links in each pinned release, measured statically:
// its chunk closure and the bare packages of that closure (the loader refuses bare packages today). The measurement
// is deterministic and says why an allow-list of a few pure packages cannot make the component load. Without the
// openclaw/ workspace the suite skips, naming `npm ci --prefix openclaw`.
import { describe, expect, it } from 'vitest';
import { chunkClosure, openclawReleases, resolveOpenclawExport } from '../../sim/real/openclaw/index.ts';
import { openclawMissing } from './openclaw-support.ts';

const missing = openclawMissing('real OpenClaw tests');

describe.skipIf(missing)("handleNodeEvent's import closure", () => {
  for (const release of openclawReleases) {
    it(`${release}: links the system-event chunk, and imports bare packages (json5, chalk, ...)`, () => {
      const start = resolveOpenclawExport(release, 'src/gateway/server-node-events.ts', 'handleNodeEvent').chunk;
      const closure = chunkClosure(release, start);
      const systemEvents = resolveOpenclawExport(release, 'src/infra/system-events.ts', 'enqueueSystemEvent').chunk;
      expect(closure.chunks).toContain(systemEvents);
      const specifiers = closure.packages.map(({ specifier }) => specifier);
      expect(specifiers).toContain('json5');
      expect(specifiers).toContain('chalk');
      expect(chunkClosure(release, start)).toEqual(closure);
      process.stderr.write(`${release}: ${closure.chunks.length} chunks, packages: ${specifiers.join(' ')}\n`);
    });
  }
});
