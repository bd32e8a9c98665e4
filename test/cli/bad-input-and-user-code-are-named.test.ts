// Bad input is refused and the caller's own code is named as such: an empty --bugs list (`--bugs "$BUGS"` with the
// variable unset) is exit 2, not a green run with every bug off; a registered invariant that throws is reported as
// the caller's code, with its stack, not as gatesim's internal error; `list` keeps its columns for long names.
import { describe, expect, it } from 'vitest';
import { cli, loadableModule, oneSessionScenarioSource } from './support.ts';

const longName = 'my-very-long-scenario-name';
const setup = loadableModule(
  (entry) => `import { faultKnobs, fc, modelKnobs, registerInvariant, registerScenario, settleMs, userStep } from '${entry}';
function judgeOrThrow() {
  throw new Error('my check broke');
}
registerInvariant({ name: 'throws-always', class: 'correctness', check: () => judgeOrThrow() });
${oneSessionScenarioSource(longName)}`,
);

describe('an empty --bugs list', () => {
  it.each([[['run', 'exec-replay', '--seed', '1']], [['fuzz', '--scenario', 'exec-replay', '--runs', '1', '--seed', '1']]])('is refused with exit 2 by %j, and --bugs none runs', (args) => {
    for (const empty of ['', ' ', ',', ' , ']) {
      const result = cli([...args, '--bugs', empty]);
      expect(result.status, `--bugs "${empty}"`).toBe(2);
      expect(result.stderr).toMatch(/^gatesim: .*empty list \(say --bugs none/);
      expect(result.stdout).toBe('');
    }
    expect(cli([...args, '--bugs', 'none']).status).toBe(0);
  });
});

describe('a registered invariant that throws', () => {
  it("is reported as the caller's code with its stack, exit 2, not as gatesim's internal error", () => {
    const result = cli(['--load', setup, 'run', longName, '--seed', '1']);
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/^gatesim: your invariant "throws-always" \(registered with registerInvariant\) threw: my check broke\n/);
    expect(result.stderr).not.toContain('internal error');
    expect(result.stderr).toMatch(/at judgeOrThrow \(.*gatesim\.setup\.ts/);
  });
});

describe('list', () => {
  it('widens a column for a name longer than 14 characters', () => {
    const result = cli(['--load', setup, 'list'], { NO_COLOR: '1' });
    expect(result.status).toBe(0);
    const rows = result.stdout.split('\n').filter((line) => /^ {2}\S/.test(line));
    const scenarioRows = rows.slice(0, rows.findIndex((line) => line.includes(longName)) + 1);
    // Where the description starts: after the two-space indent, the name and its padding.
    const starts = new Set(scenarioRows.map((line) => /^ {2}\S+ +/.exec(line)?.[0].length));
    expect(starts.size, scenarioRows.join('\n')).toBe(1);
  });
});
