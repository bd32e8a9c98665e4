// Descriptors in the simulated world (sim/real/openclaw-hooks/fs.mjs, sim/real/openclaw/binding.ts diskDescriptors):
// a release's node:fs opens, reads and writes the simulated disk's files by descriptor (the disk's *Now calls: at once,
// volatile until written back), reads its own package files by descriptor (2026.9.6 reads dist/build-info.json with
// fs-safe's positional readSync at load), and what the simulated disk cannot do synchronously (fsyncSync,
// fdatasyncSync) or a write to the package files stays loud. Needs no openclaw/ workspace (the package view reads this
// repository's own files as a stand-in).
import { describe, expect, it } from 'vitest';
import { Simulation } from '../../sim/kernel/simulation.ts';
import { builtinModule } from '../../sim/real/openclaw-hooks.mjs';
import { inAGatewayIncarnation } from './gateway-incarnation.ts';

type Fs = Record<string, (...args: unknown[]) => unknown>;

async function inAnIncarnation(body: (fs: Fs, escapes: string[], sim: Simulation) => void): Promise<void> {
  await inAGatewayIncarnation('openclaw-disk-descriptors', ({ world, escapes, sim }) => body(builtinModule(world, 'node:fs', [])?.default as Fs, escapes, sim));
}

describe('descriptors in the simulated world', () => {
  it('of the simulated disk: open, write, read at a position, append, stat and close, at once and volatile', async () => {
    await inAnIncarnation((fs, escapes, sim) => {
      fs.mkdirSync?.('/home/openclaw/.openclaw', { recursive: true });
      const path = '/home/openclaw/.openclaw/state.txt';
      const fd = fs.openSync?.(path, 'wx+') as number;
      expect(fd).toBeGreaterThanOrEqual(10_000);
      expect(fs.writeSync?.(fd, 'hello world')).toBe(11);
      expect(fs.writeSync?.(fd, Buffer.from('HELLO'), 0, 5, 0)).toBe(5);
      const buffer = Buffer.alloc(5);
      expect(fs.readSync?.(fd, buffer, 0, 5, 0)).toBe(5);
      expect(buffer.toString()).toBe('HELLO');
      fs.closeSync?.(fd);
      expect(sim.disk.peek(path)).toBe('HELLO world');
      expect(sim.disk.peekSynced(path)).toBe('');
      const reader = fs.openSync?.(path, 'r') as number;
      expect(fs.readSync?.(reader, buffer, { offset: 0, length: 5, position: 6 })).toBe(5);
      expect(buffer.toString()).toBe('world');
      expect((fs.fstatSync?.(reader) as { size: number }).size).toBe(11);
      fs.closeSync?.(reader);
      const appender = fs.openSync?.(path, 'a') as number;
      fs.writeSync?.(appender, '!\n');
      fs.closeSync?.(appender);
      expect(sim.disk.peek(path)).toBe('HELLO world!\n');
      expect(() => fs.openSync?.(path, 'wx')).toThrow(/EEXIST/);
      expect(() => fs.openSync?.('/home/openclaw/missing', 'r')).toThrow(/ENOENT/);
      expect(escapes).toEqual([]);
      // No synchronous sync on the simulated disk: loud.
      const syncing = fs.openSync?.(path, 'r+') as number;
      expect(() => fs.fsyncSync?.(syncing)).toThrow(/fs.fsyncSync of descriptor/);
      expect(() => fs.fdatasyncSync?.(syncing)).toThrow(/fs.fdatasyncSync of descriptor/);
      expect(escapes).toEqual([`fs.fsyncSync of descriptor ${syncing}`, `fs.fdatasyncSync of descriptor ${syncing}`]);
    });
  });

  it("of the package files: read-only, positional reads as fs-safe's readFileWindowFullySync makes them; a write is loud", async () => {
    await inAnIncarnation((fs, escapes) => {
      const fd = fs.openSync?.('/gatesim/openclaw-test/package.json', 'r') as number;
      const window = Buffer.alloc(12);
      expect(fs.readSync?.(fd, window, 0, 12, 0)).toBe(12);
      expect(window.toString()).toBe('{\n  "name": ');
      expect(fs.readSync?.(fd, window, 0, 1, null)).toBe(1);
      expect(fs.fsyncSync?.(fd)).toBeUndefined();
      expect(() => fs.writeSync?.(fd, 'x')).toThrow(/read-only/);
      fs.closeSync?.(fd);
      expect(() => fs.openSync?.('/gatesim/openclaw-test/package.json', 'w')).toThrow(/read-only/);
      expect(escapes).toEqual(["fs.writeSync of the package file /gatesim/openclaw-test/package.json (read-only)", 'fs.openSync(/gatesim/openclaw-test/package.json, w) on the package files (read-only)']);
    });
  });
});
