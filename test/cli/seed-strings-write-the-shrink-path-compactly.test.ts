// A seed string writes its shrink path compactly (issue 42): a character a step, a run of one step as the step and a
// count letter, so a reviewer pastes a short token. Strings written before, with the steps joined by `-` (those that
// docs/MODEL.md quotes), still replay; an edited compact string is refused like any other.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { findScenario } from '../../scenarios/index.ts';
import { decodeSeedString, encodeSeedString, SeedStringError, verifySeedString } from '../../sim/cli/seed-string.ts';
import { generateSpec } from '../../sim/run/generate.ts';
import { cli } from './support.ts';

/** The first seed string docs/MODEL.md's table of the seeds' fixes falling short gives for `scenario`. */
function modelMdSeed(scenario: string): string {
  const modelMd = readFileSync(new URL('../../docs/MODEL.md', import.meta.url), 'utf8');
  const table = modelMd.slice(modelMd.indexOf("### Where the seeds' fixes fall short"));
  const seed = [...table.matchAll(/`(gs2\.[^`\s]+)`/g)].map((match) => match[1] as string).find((text) => text.startsWith(`gs2.${scenario}.`));
  if (seed === undefined) throw new Error(`docs/MODEL.md gives no seed string of ${scenario} in its table of the seeds' fixes falling short`);
  return seed;
}

const scenario = findScenario('send-mid-turn');
if (scenario === undefined) throw new Error('send-mid-turn is built in');
const plan = generateSpec(scenario, [], 9, undefined);

/** The <path> field a fast-check path (steps joined by `:`) is written as. */
function pathField(path: string | undefined): string {
  return encodeSeedString({ scenario: 'send-mid-turn', bugs: [], seed: 9, path }, plan).split('.')[4] as string;
}

describe('the shrink path of a seed string', () => {
  it('is a character a step (0-9, a-z; _n_ beyond), a run of three or more as the step and its count (C-Z)', () => {
    expect(pathField(undefined)).toBe('r');
    expect(pathField(['0', '24', '1', '1', '1', '1', ...Array<string>(10).fill('4'), '35', '36', '1', '1'].join(':'))).toBe('0o1D4Jz_36_11');
    expect(pathField(['0', ...Array<string>(30).fill('7')].join(':'))).toBe('07Z7D');
  });

  it('stays in the form before it when the compact one would be all digits or `r` (read differently there)', () => {
    expect(pathField('0:1:2')).toBe('0-1-2');
    expect(pathField('5')).toBe('5');
    expect(pathField('27')).toBe('27');
    expect(decodeSeedString(encodeSeedString({ scenario: 'send-mid-turn', bugs: [], seed: 9, path: '27' }, plan)).path).toBe('27');
  });

  it('round-trips through decoding, for any steps', () => {
    const paths = ['0', '0:0', '0:0:0', '1:2:3:4:5:6:7:8:9:10', '0:40:40:40:1000:1000:0', `0:${Array<string>(60).fill('3').join(':')}:2:2`, '0:27', '27:0'];
    for (const path of paths) expect(decodeSeedString(encodeSeedString({ scenario: 'send-mid-turn', bugs: [], seed: 9, path }, plan)).path, path).toBe(path);
  });

  it('refuses another spelling of the same steps, a count with no step, and a path too long to be one', () => {
    const seed = encodeSeedString({ scenario: 'send-mid-turn', bugs: [], seed: 9, path: '0:1:1:1:1' }, plan);
    expect(seed.split('.')[4]).toBe('01D');
    for (const field of ['011C', '0_1_D', 'D01', '01A', '01B', '01_', '0-1D', '0_40', '01+', '']) {
      expect(() => decodeSeedString(seed.replace('.01D.', `.${field}.`)), field).toThrow(SeedStringError);
    }
    expect(() => decodeSeedString(seed.replace('.01D.', `.${'0Z'.repeat(200)}.`))).toThrow('more than 4096 steps');
  });
});

describe("docs/MODEL.md's seed strings, written before, and their compact form", () => {
  const old = modelMdSeed('exec-replay');

  it('the old form replays; its compact form is shorter and replays the same run', () => {
    const decoded = decodeSeedString(old);
    expect(old.split('.')[4]).toMatch(/^\d+(-\d+)+$/);
    const found = findScenario(decoded.scenario);
    if (found === undefined) throw new Error(`${decoded.scenario} is built in`);
    const spec = generateSpec(found, decoded.bugs, decoded.seed, decoded.path);
    verifySeedString(decoded, spec);
    const compact = encodeSeedString(decoded, spec);
    expect(compact.split('.')[4]).not.toContain('-');
    expect(compact.length).toBeLessThan(old.length - 30);
    expect(decodeSeedString(compact).path).toBe(decoded.path);
    const before = cli(['repro', old, '--json']);
    expect(before.stderr).toBe('');
    const after = cli(['repro', compact, '--json']);
    expect(after.stderr).toBe('');
    expect(after.status).toBe(before.status);
    const json = (text: string) => JSON.parse(text) as { verdict: string; traceHash: string; seed: string };
    expect(json(before.stdout).verdict).toBe('fail');
    expect(json(after.stdout)).toMatchObject({ verdict: 'fail', traceHash: json(before.stdout).traceHash, seed: compact });
  }, 120_000);

  it('an edited compact string is refused (exit 2): a step changed, or a run made longer', () => {
    const decoded = decodeSeedString(old);
    const found = findScenario(decoded.scenario);
    if (found === undefined) throw new Error(`${decoded.scenario} is built in`);
    const compact = encodeSeedString(decoded, generateSpec(found, decoded.bugs, decoded.seed, decoded.path));
    const field = compact.split('.')[4] as string;
    const run = /[0-9a-z][C-Y]/.exec(field);
    if (run === null) throw new Error(`the compact path ${field} has a run`);
    const edits = [
      // The last step one more (a path that exists: fast-check shrinks past it or not, the check says which).
      `${field.slice(0, -1)}${field.endsWith('0') ? '1' : '0'}`,
      `${field.slice(0, run.index + 1)}${String.fromCharCode((run[0].charCodeAt(1) as number) + 1)}${field.slice(run.index + 2)}`,
    ];
    for (const edited of edits) {
      const result = cli(['repro', compact.replace(`.${field}.`, `.${edited}.`)]);
      expect(result.status, edited).toBe(2);
      expect(result.stderr, edited).toMatch(/seed string check failed: it was edited or truncated|its shrink path does not exist/);
    }
  }, 120_000);
});
