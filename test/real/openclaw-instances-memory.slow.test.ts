// Memory stays bounded when every process incarnation gets a fresh instance of a release's chunks (issue 22: a fresh
// ES module per incarnation is never freed, +299 MB over 2,000 instances of one 9 KiB chunk). sim/real/openclaw
// compiles each chunk once and instantiates it per incarnation; here 2,000 instances of each release's system-event
// queue (13 chunks in 2026.4.24, 45 in 2026.7.1, every module body evaluated each time) are made and used in a fresh
// process with --expose-gc, and the heap and RSS after a full collection are compared with a warm start. Measured on
// the 2-core machine of issue 22, over several runs: RSS from -2.4 to +3.1 MB, heap +0.0 to +0.3 MB; 10-13 ms per
// instance of 2026.4.24 and 19-26 ms of 2026.7.1 (their module bodies read and parse the release's channel catalog
// and plugin manifests, and 2026.7.1's build a 330 KB table of channel metadata).
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { openclawInstalled, openclawMissingMessage, openclawReleases } from '../../sim/real/openclaw/index.ts';

const missing = !openclawReleases.every((release) => openclawInstalled(release));
if (missing && process.env.CI === 'true') throw new Error(openclawMissingMessage);
if (missing) process.stderr.write(`skipping the real OpenClaw tests: ${openclawMissingMessage}\n`);

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const run = promisify(execFile);

/** The child: warm up, then 2,000 instances, each enqueueing and draining once; prints one JSON line. */
const child = `
const { loadOpenclawComponent, openclawBinding } = await import(process.env.GATESIM_OPENCLAW_INDEX);
const release = process.env.GATESIM_OPENCLAW_RELEASE;
const count = Number(process.env.GATESIM_OPENCLAW_INSTANCES);
let now = 0;
const emptyDisk = { existsSync: () => false, readFileSync: (path) => { throw Object.assign(new Error('ENOENT ' + path), { code: 'ENOENT' }); } };
const noTimers = { sleep: () => Promise.reject(new Error('no timers')), setTimer: () => { throw new Error('no timers'); } };
const escapes = [];
const use = () => {
  const binding = openclawBinding(release, { clock: { nowMs: () => now }, timers: noTimers, random: { int: (min) => min }, alive: () => true, fs: emptyDisk });
  const queue = loadOpenclawComponent(release, 'system-events', binding);
  queue.enqueueSystemEvent('event ' + now, { sessionKey: 'agent:main:main', contextKey: 'exec:r' + now });
  if (queue.drainSystemEvents('agent:main:main').length !== 1) throw new Error('the queue lost its event');
  escapes.push(...binding.escapes);
  now += 1;
};
const settled = () => { for (let i = 0; i < 4; i++) globalThis.gc(); return process.memoryUsage(); };
for (let i = 0; i < 50; i++) use();
const before = settled();
const start = process.hrtime.bigint();
for (let i = 0; i < count; i++) use();
const elapsedMs = Number(process.hrtime.bigint() - start) / 1e6;
const after = settled();
console.log(JSON.stringify({ rssMB: (after.rss - before.rss) / 2 ** 20, heapMB: (after.heapUsed - before.heapUsed) / 2 ** 20, msPerInstance: elapsedMs / count, escapes }));
`;

describe.skipIf(missing)('fresh instances per incarnation', () => {
  for (const release of openclawReleases) {
    it(`2,000 instances of ${release}'s system-event queue keep the heap and RSS bounded`, { timeout: 300_000 }, async () => {
      const { stdout } = await run(process.execPath, ['--expose-gc', '--import', 'tsx', '--input-type=module', '--eval', child], {
        cwd: repoRoot,
        env: {
          ...process.env,
          GATESIM_OPENCLAW_INDEX: new URL('../../sim/real/openclaw/index.ts', import.meta.url).href,
          GATESIM_OPENCLAW_RELEASE: release,
          GATESIM_OPENCLAW_INSTANCES: '2000',
        },
        maxBuffer: 1 << 20,
      });
      const measured = JSON.parse(stdout.trim().split('\n').at(-1) as string) as { rssMB: number; heapMB: number; msPerInstance: number; escapes: string[] };
      process.stderr.write(`openclaw ${release}: 2,000 instances, RSS ${measured.rssMB.toFixed(1)} MB, heap ${measured.heapMB.toFixed(1)} MB, ${measured.msPerInstance.toFixed(1)} ms each\n`);
      expect(measured.escapes).toEqual([]);
      // A leaked instance of these closures holds hundreds of KiB: 2,000 of them would be hundreds of MB.
      expect(measured.heapMB).toBeLessThan(8);
      expect(measured.rssMB).toBeLessThan(48);
    });
  }
});
