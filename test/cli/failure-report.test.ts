// The failure report a reviewer reads: the shrunk plan in a few lines, the decisive step of the timeline marked, one
// step counter everywhere (trace-event indices; a run's length in trace events, the same in text and JSON); colour
// only on a terminal. Every variable that decides colour is set or cleared here, whatever the caller's shell exports.
import { describe, expect, it } from 'vitest';
import { cli } from './support.ts';

const escape = String.fromCharCode(27);

/** The environment the report is judged in: no colour variable from the caller's shell (NO_COLOR=1 there must not matter). */
const plain: NodeJS.ProcessEnv = { NO_COLOR: undefined, FORCE_COLOR: undefined, CI: undefined, TERM: undefined };

describe('the failure report', () => {
  const args = ['run', 'send-mid-turn', '--seed', '4', '--bugs', 'send-flag'];
  const text = cli(args, plain);
  const json = JSON.parse(cli([...args, '--json'], plain).stdout) as { steps: number; violations: { step: number; invariant: string }[] };

  it('prints the plan in a few readable lines', () => {
    expect(text.status).toBe(1);
    const lines = text.stdout.split('\n');
    const start = lines.indexOf('plan');
    expect(start).toBeGreaterThan(0);
    const planLines = lines.slice(start + 1, lines.indexOf('', start));
    expect(planLines.length).toBeGreaterThanOrEqual(3);
    expect(planLines.length).toBeLessThanOrEqual(5);
    expect(planLines[0]).toMatch(/^ {2}\d+ session\(s\); faults until /);
    expect(planLines.some((line) => /^ {2}workload: .*user "/.test(line))).toBe(true);
    expect(planLines.some((line) => line.startsWith('  faults:'))).toBe(true);
  });

  it('marks the decisive line of the timeline at the step of the first violation', () => {
    const first = json.violations[0];
    expect(first).toBeDefined();
    const marked = text.stdout.split('\n').filter((line) => line.startsWith('>>'));
    expect(marked).toHaveLength(1);
    expect(marked[0]).toContain(`#${first?.step} `);
    expect(marked[0]).toContain(`<- ${first?.invariant}`);
    expect(text.stdout).toContain(`(correctness, step #${first?.step})`);
  });

  it('counts steps in trace events in the text and the JSON alike', () => {
    const header = /(\d+) steps \(trace events #0-#(\d+)\)/.exec(text.stdout);
    expect(header?.[1]).toBe(String(json.steps));
    expect(Number(header?.[2])).toBe(json.steps - 1);
    for (const violation of json.violations) expect(violation.step).toBeLessThan(json.steps);
  });

  it('has no colour codes when piped, even with CI=true, and accepts --no-color', () => {
    expect(text.stdout).not.toContain(escape);
    const ci = cli(args, { ...plain, CI: 'true' });
    expect(ci.stdout).not.toContain(escape);
    expect(ci.stdout).toBe(text.stdout);
    const noColor = cli([...args, '--no-color'], { ...plain, FORCE_COLOR: '1' });
    expect(noColor.status).toBe(1);
    expect(noColor.stdout).not.toContain(escape);
    expect(cli(args, { ...plain, FORCE_COLOR: '1' }).stdout).toContain(escape);
    expect(cli(args, { ...plain, NO_COLOR: '1' }).stdout).not.toContain(escape);
  });
});
