// What the SQLite era's handleNodeEvent reaches on the simulated machine besides node:sqlite (issue 45 item 3), each a
// fact of the machine, the same on every host: the agent database's bytes through node:fs (readFileSync of a binary
// file: its bytes, not UTF-8 text), `statSync(path, { bigint: true })` (2026.9.6 records the database's dev:ino and
// birth time at open), the mount probe before WAL (fs.statfsSync and /proc/self/mountinfo: ext4 at /), and what its
// memory diagnostics read at load (v8.getHeapStatistics, os.totalmem, process.constrainedMemory, process.permission
// absent) and its immutable-data checks (node:util/types). Needs no openclaw/ workspace (the package view reads this
// repository's own files as a stand-in).
import { describe, expect, it } from 'vitest';
import { Simulation } from '../../sim/kernel/simulation.ts';
import { builtinModule } from '../../sim/real/openclaw-hooks.mjs';
import { inAGatewayIncarnation } from './gateway-incarnation.ts';

type Module = Record<string, (...args: unknown[]) => unknown>;
interface Machine {
  module(name: string, imported?: string[]): Module;
  process: Record<string, unknown>;
  escapes: string[];
  sim: Simulation;
  files: ReturnType<Simulation['disk']['binaryFilesOf']>;
}

async function onTheMachine(body: (machine: Machine) => void): Promise<void> {
  await inAGatewayIncarnation('openclaw-sqlite-era-machine', ({ world, escapes, sim, owner }) =>
    body({
      module: (name, imported = []) => builtinModule(world, name, imported) as Module,
      process: (world as unknown as { globals: { process: Record<string, unknown> } }).globals.process,
      escapes,
      sim,
      files: sim.disk.binaryFilesOf(owner),
    }),
  );
}

const database = '/home/openclaw/.openclaw/agents/main/agent/openclaw-agent.sqlite';

describe("the SQLite era's machine", () => {
  it("reads a binary file's bytes through node:fs, as they are in the page cache", async () => {
    await onTheMachine(({ module, files, escapes }) => {
      const fs = module('node:fs').default as unknown as Module;
      // Bytes that are not valid UTF-8 (SQLite's header is followed by binary page data).
      const bytes = Uint8Array.from([0x53, 0x51, 0x4c, 0x00, 0xff, 0xfe, 0x80, 0x10, 0xc3]);
      fs.mkdirSync?.('/home/openclaw/.openclaw/agents/main/agent', { recursive: true });
      files.write(database, 0, bytes);
      const read = fs.readFileSync?.(database) as Buffer;
      expect(Buffer.isBuffer(read)).toBe(true);
      expect([...read]).toEqual([...bytes]);
      expect(fs.readFileSync?.(database, 'latin1')).toBe(Buffer.from(bytes).toString('latin1'));
      expect((fs.statSync?.(database) as { size: number }).size).toBe(bytes.length);
      expect(escapes).toEqual([]);
    });
  });

  it('answers statSync with { bigint: true }, the mount probe and the memory facts, the same on every host', async () => {
    await onTheMachine(({ module, process, files, escapes }) => {
      const fs = module('node:fs').default as unknown as Module;
      fs.mkdirSync?.('/home/openclaw/.openclaw/agents/main/agent', { recursive: true });
      files.write(database, 0, Uint8Array.from([1, 2, 3]));
      const stats = fs.statSync?.(database, { bigint: true }) as { size: bigint; dev: bigint; ino: bigint; birthtimeNs: bigint; isFile(): boolean };
      expect([stats.size, stats.dev, stats.ino, stats.birthtimeNs, stats.isFile()]).toEqual([3n, 1n, 0n, 0n, true]);
      expect(typeof (fs.statSync?.(database) as { size: unknown }).size).toBe('number');
      expect((fs.statfsSync?.('/home/openclaw/.openclaw') as { type: number }).type).toBe(0xef53);
      expect(() => fs.statfsSync?.('/nowhere')).toThrow(/ENOENT/);
      expect(fs.readFileSync?.('/proc/self/mountinfo', 'utf8')).toBe('1 0 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n');
      expect((module('node:v8', ['getHeapStatistics']).getHeapStatistics?.() as { heap_size_limit: number }).heap_size_limit).toBe(4496293888);
      expect(module('node:os', ['totalmem']).totalmem?.()).toBe(8 * 1024 ** 3);
      expect((process.constrainedMemory as () => number)()).toBe(2 ** 64);
      expect('permission' in process && process.permission === undefined).toBe(true);
      expect(module('node:util/types', ['isProxy']).isProxy?.(new Proxy({}, {}))).toBe(true);
      expect(escapes).toEqual([]);
    });
  });
});
