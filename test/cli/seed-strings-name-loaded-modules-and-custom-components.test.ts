// A seed string names everything that changed its run besides the plan: a module the command line loaded (--load)
// and a component of the caller's own (a function, which no token can carry). A replay that lacks either is refused
// with exit 2 and a line naming what to supply, instead of silently running something else and passing; with it,
// the replay gives the same verdict and trace hash.
import { describe, expect, it } from 'vitest';
import { reproduce, runScenario, SeedStringError, toolServerMain, type ModelComponents } from '../../lib/index.ts';
import { fuzz } from '../../lib/run.ts';
import { decodeSeedString, encodeSeedString } from '../../sim/cli/seed-string.ts';
import { generateSpec } from '../../sim/run/generate.ts';
import { findScenario } from '../../scenarios/index.ts';
import { cli, loadableModule, oneSessionScenarioSource } from './support.ts';

const setup = loadableModule(
  (entry) => `import { byTime, faultKnobs, fc, modelKnobs, registerInvariant, registerScenario, settleMs, userStep } from '${entry}';
registerInvariant({ name: 'never-two-sessions', class: 'correctness', check: (o) => (o.ledger.userMessages.some((m) => m.sessionKey.endsWith(':1')) ? [{ message: 'a second session was used' }] : []) });
${oneSessionScenarioSource('my-one-session')}`,
);

/** A tool server of one's own that answers every call without recording anything (caught as a lost reply). */
const liar: ModelComponents = {
  'tool-server': () => async (ctx) => {
    for (;;) {
      const delivery = await ctx.net.receive();
      const payload = delivery.payload as { type?: string; callId?: string };
      if (payload.type === 'tool.call') ctx.net.send(delivery.from, { type: 'tool.result', callId: payload.callId, ok: true });
    }
  },
};

describe('seed strings of runs with --load', () => {
  it('repro without the module is refused naming it; with it, the run replays', () => {
    const fuzzed = cli(['--load', setup, 'fuzz', '--scenario', 'chaos', '--runs', '40', '--seed', '2', '--invariant', 'never-two-sessions', '--json'], {}, 300_000);
    expect(fuzzed.status, fuzzed.stderr).toBe(1);
    const seed = (JSON.parse(fuzzed.stdout) as { failures: { seed: string }[] }).failures[0]?.seed ?? '';
    // Named from its project root (the folder of its package.json), not as given.
    expect(seed).toMatch(/^gs2\.chaos@file-gatesim_setup_ts\./);
    expect(decodeSeedString(seed).loads).toEqual(['./gatesim.setup.ts']);
    const bare = cli(['repro', seed]);
    expect(bare.status).toBe(2);
    expect(bare.stderr).toContain('seed string was made with --load ./gatesim.setup.ts');
    const loaded = cli(['--load', setup, 'repro', seed, '--json']);
    expect(loaded.status, loaded.stderr).toBe(1);
    expect((JSON.parse(loaded.stdout) as { violations: { invariant: string }[] }).violations.map((violation) => violation.invariant)).toContain('never-two-sessions');
  }, 300_000);

  it('a seed string of a loaded scenario, replayed without --load, names the module in its error', () => {
    const ran = cli(['--load', setup, 'run', 'my-one-session', '--seed', '4', '--json']);
    expect(ran.status, ran.stderr).toBe(0);
    const seed = (JSON.parse(ran.stdout) as { seed: string }).seed;
    const bare = cli(['repro', seed]);
    expect(bare.status).toBe(2);
    expect(bare.stderr).toMatch(/unknown scenario "my-one-session": the seed string was made with --load .*gatesim\.setup\.ts/);
  }, 120_000);
});

describe('seed strings of runs with a component of ones own', () => {
  it('runScenario records the swapped process; repro on the command line is refused naming it (exit 2)', async () => {
    const run = await runScenario('send-mid-turn', { seed: 5, components: liar });
    expect(run.seed).toMatch(/^gs2\.send-mid-turn@custom-tool-server\.none\.5\./);
    const refused = cli(['repro', run.seed]);
    expect(refused.status).toBe(2);
    expect(refused.stderr).toContain('tool-server');
    expect(refused.stderr).toContain('reproduce(seed, { components:');
  });

  it('reproduce() replays it only when handed the component again, with the same trace hash', async () => {
    const run = await runScenario('send-mid-turn', { seed: 5, components: liar });
    await expect(reproduce(run.seed)).rejects.toThrow(SeedStringError);
    await expect(reproduce(run.seed)).rejects.toThrow('components of your own for tool-server');
    const again = await reproduce(run.seed, { components: liar });
    expect(again.result.traceHash).toBe(run.result.traceHash);
    expect(again.result.verdict).toBe(run.result.verdict);
    const builtin = await runScenario('send-mid-turn', { seed: 5 });
    await expect(reproduce(builtin.seed, { components: { 'tool-server': () => (ctx) => toolServerMain(ctx, new Set()) } })).rejects.toThrow('the built-in components');
  });

  it('a fuzz failure found with a component of ones own names it in its seed string', async () => {
    const report = await fuzz('send-mid-turn', { runs: 20, seed: 1, components: liar });
    expect(report.failure?.seed).toMatch(/^gs2\.send-mid-turn@custom-tool-server\./);
  }, 120_000);
});

describe('the scenario field of a seed string', () => {
  const scenario = findScenario('send-mid-turn');
  if (scenario === undefined) throw new Error('send-mid-turn is built in');
  const spec = generateSpec(scenario, [], 9, undefined);

  it('round-trips every tag, and encodes none for a plain run (old strings stay valid)', () => {
    const plain = encodeSeedString({ scenario: 'send-mid-turn', bugs: [], seed: 9, path: undefined }, spec);
    expect(plain.split('.')[1]).toBe('send-mid-turn');
    const loads = ['./a b.ts', 'pkg/setup', '../up/x_y.ts', '@scope/pkg', './déjà~+.mjs'];
    const tagged = encodeSeedString({ scenario: 'send-mid-turn', sessionManager: 'pi', custom: ['tool-server', 'gateway'], loads, bugs: [], seed: 9, path: undefined }, spec);
    const decoded = decodeSeedString(tagged);
    expect(decoded).toMatchObject({ scenario: 'send-mid-turn', sessionManager: 'pi', custom: ['gateway', 'tool-server'], loads });
    expect(tagged).not.toMatch(/\s/);
    expect(tagged.split('.')[1]).toBe('send-mid-turn@pi@custom-gateway@custom-tool-server@file-a+20b_ts@pkg-pkg~setup@file-__~up~x+5fy_ts@pkg-+40scope~pkg@file-d+c3+a9j+c3+a0+7e+2b_mjs');
  });

  it('names a loaded module once, and by its name: a module given as an absolute path is named from its project root', () => {
    const here = new URL('../../package.json', import.meta.url).pathname.replace(/package\.json$/, '');
    const tagged = encodeSeedString({ scenario: 'send-mid-turn', loads: [`${here}test/cli/support.ts`, './test/cli/support.ts', './test/cli/../cli/support.ts'], bugs: [], seed: 9, path: undefined }, spec);
    expect(tagged.split('.')[1]).toBe('send-mid-turn@file-test~cli~support_ts');
  });

  it('reads a tag written before (the module as given, base64url)', () => {
    const old = encodeSeedString({ scenario: 'send-mid-turn', bugs: [], seed: 9, path: undefined }, spec).replace('.send-mid-turn.', `.send-mid-turn@load-${Buffer.from('pkg/setup').toString('base64url')}.`);
    expect(decodeSeedString(old).loads).toEqual(['pkg/setup']);
  });

  it('refuses unknown or mis-ordered tags', () => {
    const body = (field: string): string => encodeSeedString({ scenario: 'send-mid-turn', bugs: [], seed: 9, path: undefined }, spec).replace('.send-mid-turn.', `.${field}.`);
    const refused = ['send-mid-turn@px', 'send-mid-turn@custom-node-host', 'send-mid-turn@custom-runner@custom-gateway', 'send-mid-turn@pi@pi', 'send-mid-turn@load-'];
    // Load tags only as written: not empty, no other spelling of the same name, no stray escape, no path as a package.
    refused.push('send-mid-turn@file-', 'send-mid-turn@pkg-', 'send-mid-turn@file-a+2fb', 'send-mid-turn@file-_~a', 'send-mid-turn@file-a~~b', 'send-mid-turn@file-+zz', 'send-mid-turn@file-a+2', 'send-mid-turn@pkg-_~a', 'send-mid-turn@pkg-~a', 'send-mid-turn@file-a+41', 'send-mid-turn@file-a+ff');
    refused.push('send-mid-turn@file-a@pi');
    for (const field of refused) {
      expect(() => decodeSeedString(body(field)), field).toThrow('malformed scenario field');
    }
  });
});
