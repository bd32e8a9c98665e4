// The failure report's decisive step (`>>`, the `step` of the first violation) is the event at which the invariant's
// evidence became true, placed from black-box facts: for a replayed exec event that became a second user turn, the
// state.db commit of the second user row (after the replay and its ingest on the timeline); for a reply the send-flag
// bug swallowed, the result that dropped it (the checkers place it at the commit of the row holding the closing text;
// the harness labels the step from the system's own note of the result, as a timeline label may). The timeline goes on
// past the decisive line, and a violation message with newlines stays on one line.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cli } from './support.ts';

/** No colour, whatever the caller's shell exports. */
const plain: NodeJS.ProcessEnv = { NO_COLOR: '1', FORCE_COLOR: undefined, CI: undefined };

interface Report {
  lines: string[];
  json: { steps: number; violations: { invariant: string; message: string; step: number }[] };
  trace: { index: number; kind: string; fields: Record<string, unknown> }[];
}

const dirs: string[] = [];

afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** The text report, the JSON and the trace (from the artifacts) of one run. */
function report(args: string[]): Report {
  const dir = mkdtempSync(join(tmpdir(), 'gatesim-decisive-'));
  dirs.push(dir);
  const text = cli([...args, '--artifacts', join(dir, 'run')], plain);
  expect(text.status, text.stderr).toBe(1);
  const json = JSON.parse(cli([...args, '--json'], plain).stdout) as Report['json'];
  const trace = readFileSync(join(dir, 'run', 'trace.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Report['trace'][number]);
  return { lines: text.stdout.split('\n'), json, trace };
}

/** The timeline split at its one decisive line. */
function timelineOf(lines: readonly string[]): { before: string[]; decisive: string; after: string[] } {
  const start = lines.findIndex((line) => line.startsWith('timeline ('));
  expect(start).toBeGreaterThan(0);
  const timeline = lines.slice(start + 1).filter((line) => line.startsWith(' ') || line.startsWith('>>'));
  const marked = timeline.filter((line) => line.startsWith('>>'));
  expect(marked).toHaveLength(1);
  const at = timeline.indexOf(marked[0] ?? '');
  return { before: timeline.slice(0, at), decisive: marked[0] ?? '', after: timeline.slice(at + 1) };
}

describe('the exec-replay report', () => {
  const run = report(['run', 'exec-replay', '--seed', '1', '--bugs', 'exec-replay']);
  const { before, decisive, after } = timelineOf(run.lines);
  const first = run.json.violations[0];

  it('marks the second ingest: the state.db commit of the second user row of the replayed command', () => {
    expect(first?.invariant).toBe('no-double-ingestion');
    expect(decisive).toContain(`#${first?.step} `);
    expect(decisive).toContain('<- no-double-ingestion (correctness)');
    expect(decisive).toMatch(/a second user row carrying (?:the start of )?command run-\d+ is committed to state\.db/);
    const event = run.trace[first?.step ?? -1];
    expect(event?.kind).toBe('sql.write');
    expect(event?.fields.path).toBe('/data/state.db');
    expect(decisive).not.toContain('heartbeat');
  });

  it('shows the duplicate delivery and its ingest before the decisive line, and what followed after it', () => {
    const runId = /command (run-\d+)/.exec(decisive)?.[1] ?? '';
    const lastIndex = (test: (line: string) => boolean): number => before.reduce((found, line, index) => (test(line) ? index : found), -1);
    const replay = lastIndex((line) => /link replays message|resends message/.test(line));
    const ingest = lastIndex((line) => line.includes(`exec exec:${runId} persisted as prompt`));
    expect(replay).toBeGreaterThanOrEqual(0);
    expect(ingest).toBeGreaterThan(replay);
    expect(after.length).toBeGreaterThanOrEqual(3);
    expect(after.some((line) => /prompt of \S+ persisted/.test(line))).toBe(true);
  });
});

describe('the send-flag report', () => {
  const run = report(['run', 'send-mid-turn', '--seed', '4', '--bugs', 'send-flag']);
  const { before, decisive, after } = timelineOf(run.lines);
  const first = run.json.violations[0];

  it('marks the result that dropped the reply, not a heartbeat write nor the commit of the row holding it', () => {
    expect(first?.invariant).toBe('no-lost-reply');
    expect(first?.message).toContain('"Looking it up"');
    expect(decisive).toContain(`#${first?.step} `);
    expect(decisive).toMatch(/result of \S+: blocks \["Looking it up"\], dispatched \[\]/);
    expect(decisive).toMatch(/the reply "Looking it up" is left out of the result dispatched \(its closing text was committed to state\.db at #\d+\); it is never shown/);
    expect(decisive).not.toContain('heartbeat');
    // The label comes from the system's own note of its result (a timeline label, docs/ARCHITECTURE.md section 5); the
    // verdict is the checkers', which placed it at the commit of the row holding the closing text.
    expect(run.trace[first?.step ?? -1]?.kind).toBe('model.result');
    const rowCommit = Number(/committed to state\.db at #(\d+)/.exec(decisive)?.[1]);
    expect(run.trace[rowCommit]?.kind).toBe('sql.write');
    expect(run.trace[rowCommit]?.fields.path).toBe('/data/state.db');
    expect(rowCommit).toBeLessThan(first?.step ?? -1);
  });

  it('shows the tool send and the flush before it, and the turn completing after it', () => {
    expect(before.some((line) => line.includes('send_message('))).toBe(true);
    expect(before.some((line) => /state\.db flush for /.test(line))).toBe(true);
    expect(after.some((line) => / completed$/.test(line.trim()))).toBe(true);
    expect(run.lines.some((line) => line.includes('user sees "Looking it up"'))).toBe(false);
  });
});

describe('a violation message with newlines', () => {
  const run = report(['run', 'send-mid-turn', '--seed', '0', '--bugs', 'send-dup']);

  it('is printed on one line, its newlines escaped as in the timeline', () => {
    const multiline = run.json.violations.filter((violation) => violation.message.includes('\n'));
    expect(multiline.length).toBeGreaterThan(0);
    const listed = run.lines.filter((line) => /^\S+ \((?:correctness|liveness|crash), step #\d+\): /.test(line));
    expect(listed).toHaveLength(Math.min(5, run.json.violations.length));
    for (const [index, line] of listed.entries()) {
      const message = run.json.violations[index]?.message ?? '';
      expect(line.endsWith(message.replace(/\n/g, '\\n'))).toBe(true);
    }
    timelineOf(run.lines);
  });
});
