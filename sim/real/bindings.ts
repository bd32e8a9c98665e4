// The binding between a real module and the simulated world. sim/real/hooks.mjs redirects the module's `fs`,
// `crypto`, `uuid`, `Date` and `process.cwd` to functions that look up the current binding at call time; withBinding
// makes one binding current for the span of one synchronous call into the module, so several simulated processes
// can share the one loaded module, each call seeing the disk of the incarnation that made it, that incarnation's
// PRNG stream and the simulated clock. A call outside withBinding throws. The module's wall clock is the simulated
// clock counted from simEpochMs (src/pi-format.ts), as the model's own timestamps are, so the two files' times agree.
import { simEpochMs } from '../../src/pi-format.ts';
import { assert } from '../kernel/assert.ts';
import type { SimDisk } from '../kernel/disk.ts';
import type { Incarnation } from '../kernel/process.ts';
import type { Clock, Random } from '../../src/ports.ts';

/** The synchronous fs calls pi's session-manager.js makes (the subset the hooks forward). */
export interface SyncFs {
  existsSync(path: string): boolean;
  readFileSync(path: string, encoding?: unknown): string;
  writeFileSync(path: string, data: string): void;
  appendFileSync(path: string, data: string): void;
  mkdirSync(path: string, options?: unknown): void;
}

export interface RealBinding {
  fs: SyncFs;
  /** What the module gets from crypto.randomUUID (the hooks forward it). */
  uuidV4(): string;
  uuidv7(): string;
  nowMs(): number;
  cwd: string;
}

interface BindingSlot {
  current: RealBinding | undefined;
}

const slotKey = Symbol.for('gatesim.real.binding');

function slot(): BindingSlot {
  const holder = globalThis as unknown as Record<symbol, BindingSlot | undefined>;
  holder[slotKey] ??= { current: undefined };
  return holder[slotKey];
}

/** Run `call` (synchronous) with `binding` current; calls do not nest. */
export function withBinding<T>(binding: RealBinding, call: () => T): T {
  const holder = slot();
  assert(holder.current === undefined, 'a simulated call into a real module is already under way');
  holder.current = binding;
  try {
    return call();
  } finally {
    holder.current = undefined;
  }
}

/** An ENOENT error shaped as Node's, for readFileSync of a missing file. */
function missing(path: string): Error {
  return Object.assign(new Error(`ENOENT: no such file or directory, open '${path}'`), { code: 'ENOENT', path });
}

/**
 * The simulated disk as synchronous fs, for one incarnation. The simulated disk has files only: a path is a
 * directory when some file lies under it, and mkdirSync does nothing.
 */
export function simulatedFs(disk: SimDisk, owner: Incarnation): SyncFs {
  return {
    existsSync: (path) => disk.readNow(owner, path) !== undefined || (owner.alive && disk.paths().some((file) => file.startsWith(`${path}/`))),
    readFileSync: (path) => {
      const content = disk.readNow(owner, path);
      if (content === undefined) throw missing(path);
      return content;
    },
    writeFileSync: (path, data) => disk.writeNow(owner, path, String(data)),
    appendFileSync: (path, data) => disk.appendNow(owner, path, String(data)),
    mkdirSync: () => {},
  };
}

function hex(random: Random, digits: number): string {
  let out = '';
  for (let i = 0; i < digits; i++) out += random.int(0, 15).toString(16);
  return out;
}

/** A version-4 UUID drawn from the PRNG. */
export function uuidV4(random: Random): string {
  const variant = (8 + random.int(0, 3)).toString(16);
  return `${hex(random, 8)}-${hex(random, 4)}-4${hex(random, 3)}-${variant}${hex(random, 3)}-${hex(random, 12)}`;
}

/** A version-7 UUID: 48 bits of simulated milliseconds, then PRNG bits. */
export function uuidV7(random: Random, nowMs: number): string {
  const time = Math.max(0, Math.floor(nowMs)).toString(16).padStart(12, '0').slice(-12);
  const variant = (8 + random.int(0, 3)).toString(16);
  return `${time.slice(0, 8)}-${time.slice(8)}-7${hex(random, 3)}-${variant}${hex(random, 3)}-${hex(random, 12)}`;
}

/** The binding of one incarnation: its disk view, its PRNG stream, the simulated clock from simEpochMs. */
export function simulatedBinding(disk: SimDisk, owner: Incarnation, random: Random, clock: Clock, cwd = '/work'): RealBinding {
  const nowMs = () => simEpochMs + clock.nowMs();
  return {
    fs: simulatedFs(disk, owner),
    uuidV4: () => uuidV4(random),
    uuidv7: () => uuidV7(random, nowMs()),
    nowMs,
    cwd,
  };
}
