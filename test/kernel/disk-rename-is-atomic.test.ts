// Renames are atomic metadata operations: the file appears whole under its new name and is gone from the old one
// at one instant, durably, whatever crash follows. A rename moves the file's synced and unsynced parts together, so
// renaming an fsynced temporary file is the durable replace idiom and renaming an unsynced one is not durable data.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ProcessContext } from '../../src/ports.ts';
import { AssertionError } from '../../sim/kernel/assert.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { makeSim } from './support.ts';

const sql = await loadSqlJs();
const seedArb = fc.string({ minLength: 1, maxLength: 8 });

/** Run `body` in process p, cut the power at `killAtMs`, and return what a fresh incarnation reads back. */
async function afterCrash(
  body: (ctx: ProcessContext) => Promise<void>,
  killAtMs = 5_000,
): Promise<{ final: string | undefined; tmp: string | undefined; listing: string[] }> {
  const sim = makeSim(sql, 'rename');
  let result: { final: string | undefined; tmp: string | undefined; listing: string[] } | undefined;
  sim.spawn('p', async (ctx) => {
    if (ctx.incarnation === 1) return body(ctx);
    const final = await ctx.disk.read('/state');
    const tmp = await ctx.disk.read('/state.tmp');
    result = { final, tmp, listing: await ctx.disk.list('/state') };
  });
  sim.at(killAtMs, () => {
    sim.powerLoss(['p']);
    sim.restart('p', 1);
  });
  await sim.run();
  sim.dispose();
  if (result === undefined) throw new Error('the restarted process did not read back');
  return result;
}

describe('rename', () => {
  it('write-fsync-rename replaces a file durably: a crash leaves the new content whole and no temporary', async () => {
    const result = await afterCrash(async (ctx) => {
      await ctx.disk.write('/state', 'old');
      await ctx.disk.fsync('/state');
      await ctx.disk.write('/state.tmp', 'new');
      await ctx.disk.fsync('/state.tmp');
      await ctx.disk.rename('/state.tmp', '/state');
    });
    expect(result).toEqual({ final: 'new', tmp: undefined, listing: ['/state'] });
  });

  it('renaming an unsynced temporary is durable as metadata only: the name survives, the data does not', async () => {
    const result = await afterCrash(async (ctx) => {
      await ctx.disk.write('/state', 'old');
      await ctx.disk.fsync('/state');
      await ctx.disk.write('/state.tmp', 'new');
      await ctx.disk.rename('/state.tmp', '/state');
    });
    expect(result).toEqual({ final: '', tmp: undefined, listing: ['/state'] });
  });

  it('is seen whole at once by a reader: the old content, then the new, never neither or a mixture', async () => {
    await fc.assert(
      fc.asyncProperty(seedArb, fc.string(), fc.string(), async (seed, before, after) => {
        const sim = makeSim(sql, seed);
        const seen: (string | undefined)[] = [];
        sim.spawn('writer', async (ctx) => {
          await ctx.disk.write('/state', before);
          for (let i = 0; i < 3; i++) {
            await ctx.disk.write('/state.tmp', after);
            await ctx.disk.fsync('/state.tmp');
            await ctx.disk.rename('/state.tmp', '/state');
          }
        });
        sim.spawn('reader', async (ctx) => {
          for (let i = 0; i < 200; i++) {
            seen.push(await ctx.disk.read('/state'));
            await ctx.timers.sleep(1);
          }
        });
        await sim.run();
        sim.dispose();
        const firstNew = seen.indexOf(after);
        for (const [i, content] of seen.entries()) {
          if (content === undefined) expect(i).toBe(0);
          else expect([before, after]).toContain(content);
          if (firstNew >= 0 && i > firstNew) expect(content).toBe(after);
        }
        expect(seen.at(-1)).toBe(after);
      }),
      { numRuns: 50 },
    );
  });

  it('refuses to rename a file that does not exist, and a dead process cannot rename', async () => {
    const sim = makeSim(sql, 'rename-missing');
    let caught: unknown;
    sim.spawn('p', async (ctx) => {
      try {
        await ctx.disk.rename('/nope', '/other');
      } catch (error) {
        caught = error;
      }
    });
    await sim.run();
    expect(caught).toBeInstanceOf(AssertionError);

    const fenced = makeSim(sql, 'rename-dead');
    fenced.spawn('p', async (ctx) => {
      await ctx.disk.write('/a', 'x');
      fenced.kill('p');
      void ctx.disk.rename('/a', '/b');
    });
    await fenced.run();
    sim.dispose();
    fenced.dispose();
    expect(fenced.disk.paths()).toEqual(['/a']);
  });

  it('lists files by prefix, sorted, without the old name after a rename', async () => {
    const sim = makeSim(sql, 'list');
    let listing: string[] = [];
    sim.spawn('p', async (ctx) => {
      for (const path of ['/d/c', '/d/a', '/e/x', '/d/b']) await ctx.disk.write(path, path);
      await ctx.disk.rename('/d/b', '/d/z');
      await ctx.disk.remove('/d/c');
      listing = await ctx.disk.list('/d/');
    });
    await sim.run();
    sim.dispose();
    expect(listing).toEqual(['/d/a', '/d/z']);
  });
});
