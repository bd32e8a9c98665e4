// The command-line contract of docs/ARCHITECTURE.md section 7, through a real child process: JSON shapes, exit codes,
// and one clear line on stderr (no stack trace) for bad usage and bad input.
import { describe, expect, it } from 'vitest';
import { scenarioNames } from '../../scenarios/index.ts';
import { cli as run } from './support.ts';

/** A child process that does not answer within 60 s (a spin) fails the test instead of hanging it. */
function cli(...args: string[]): { status: number; stdout: string; stderr: string } {
  return run(args, {}, 60_000);
}

describe('bad input exits 2 with one line', () => {
  const good = cli('run', 'send-mid-turn', '--seed', '5', '--json');
  const seed = (JSON.parse(good.stdout) as { seed: string }).seed;
  const cases: [string, string[], RegExp][] = [
    ['an empty seed string', ['repro', ''], /empty seed string/],
    ['a seed string with spaces', ['repro', 'gs2.chaos none'], /one token/],
    ['a malformed seed string', ['repro', 'hello'], /malformed seed string/],
    ['a truncated seed string', ['repro', seed.slice(0, seed.lastIndexOf('.'))], /truncated|malformed/],
    ['a tampered seed string', ['repro', seed.replace('.5.', '.6.')], /check failed/],
    ['a tampered check', ['repro', `${seed.slice(0, -1)}${seed.endsWith('0') ? '1' : '0'}`], /check failed/],
    ['another format version', ['repro', seed.replace(/^gs2/, 'gs9')], /format gs9/],
    ['an unknown scenario in a seed string', ['repro', seed.replace('send-mid-turn', 'nope')], /unknown scenario "nope"/],
    ['an unknown bug in a seed string', ['repro', seed.replace('.none.', '.made-up.')], /unknown bug id "made-up"/],
    ['an unknown scenario', ['run', 'nope'], /unknown scenario "nope" \(known: exec-replay/],
    ['an unknown bug id', ['run', 'chaos', '--bugs', 'send-dup,nope'], /unknown bug id "nope" \(known: exec-replay/],
    ['a bad seed number', ['run', 'chaos', '--seed', '12x'], /seed must be an integer/],
    ['a negative seed', ['run', 'chaos', '--seed', '-1'], /seed must be an integer|unknown option/],
    ['a bad run count', ['fuzz', '--all', '--runs', '0'], /--runs must be a positive integer/],
    ['a bad shard', ['fuzz', '--all', '--shard', '3/2'], /shard must be/],
    ['fuzz without a scenario', ['fuzz'], /exactly one of --scenario <name> or --all/],
    ['an empty --junit path', ['fuzz', '--all', '--runs', '1', '--junit', ''], /--junit needs a path/],
    ['an empty --artifacts path', ['fuzz', '--all', '--runs', '1', '--artifacts', ''], /--artifacts needs a path/],
    ['an empty --artifacts path of run', ['run', 'chaos', '--seed', '1', '--artifacts', ''], /--artifacts needs a path/],
    ['a --junit name too long for a file system', ['fuzz', '--all', '--runs', '1', '--junit', `/tmp/${'j'.repeat(300)}.xml`], /is 304 bytes; file names must stay under/],
    ['the same path for --junit and --artifacts', ['fuzz', '--all', '--runs', '1', '--junit', '/tmp/gatesim-same', '--artifacts', '/tmp/gatesim-same'], /name the same path/],
    ['an unknown command', ['explode'], /unknown command/],
    ['no command at all', [], /a command is required/],
    ['an unknown option', ['run', 'chaos', '--jsn'], /unknown option '--jsn'/],
    ['an artifacts path that cannot be written', ['run', 'chaos', '--seed', '1', '--artifacts', '/dev/null/x'], /cannot write artifacts to \/dev\/null\/x/],
    ['an unknown invariant to hunt', ['fuzz', '--all', '--invariant', 'nope'], /unknown invariant "nope"/],
    ['run --artifacts under /proc (Node spins there)', ['run', 'chaos', '--seed', '1', '--artifacts', '/proc/nope'], /cannot write artifacts to \/proc\/nope \(ENOENT\)/],
    ['repro --artifacts under /proc', ['repro', seed, '--artifacts', '/proc/nope/deeper'], /cannot write artifacts to \/proc\/nope\/deeper/],
    ['fuzz --artifacts under /proc', ['fuzz', '--all', '--runs', '1', '--seed', '1', '--artifacts', '/proc/nope'], /cannot write artifacts to \/proc\/nope/],
    ['fuzz --junit under /proc', ['fuzz', '--all', '--runs', '1', '--seed', '1', '--junit', '/proc/nope/junit.xml'], /cannot write JUnit to \/proc\/nope\/junit.xml/],
    ['fuzz --junit naming a directory', ['fuzz', '--all', '--runs', '1', '--seed', '1', '--junit', 'test'], /cannot write JUnit to test \(it is a directory\)/],
    ['a 100 kB seed string', ['repro', `gs2.${'a'.repeat(100_000)}`], /seed string is too long \(100004 characters; at most 4096\)/],
    ['a 3 kB malformed token', ['repro', 'x'.repeat(3_000)], /malformed seed string/],
    ['a 100 kB scenario name', ['run', 'z'.repeat(100_000)], /unknown scenario "z{60}\.\.\. \(100000 characters\)"/],
    ['a shard like 5/3', ['fuzz', '--all', '--seed', '1', '--shard', '5/3'], /shard must be/],
    ['--workers 0', ['fuzz', '--all', '--workers', '0'], /--workers must be a positive integer/],
    ['--workers 1000', ['fuzz', '--all', '--seed', '1', '--workers', '1000'], /--workers must be at most 64/],
    ['--runs with --seconds', ['fuzz', '--all', '--runs', '2', '--seconds', '2'], /give --runs or --seconds, not both/],
  ];
  it.each(cases)('%s', (_name, args, message) => {
    const result = cli(...args);
    expect(result.status).toBe(2);
    expect(result.stdout).toBe('');
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(message);
    expect(lines[0]?.length ?? 0).toBeLessThan(400);
    expect(result.stderr).not.toMatch(/\bat .+:\d+:\d+/);
  });
});

describe('JSON output', () => {
  it('run --json and repro --json print the contract fields, and repro replays run exactly', () => {
    const run = cli('run', 'exec-replay', '--seed', '9', '--json');
    expect(run.status).toBe(0);
    const first = JSON.parse(run.stdout) as Record<string, unknown>;
    // The contract's fields, and realCode: whose code ran (gatesim's model alone here).
    expect(Object.keys(first)).toEqual(['seed', 'scenario', 'bugs', 'realCode', 'verdict', 'violations', 'steps', 'simTimeMs', 'traceHash']);
    expect(first.realCode).toMatchObject({ openclaw: null, sessionManager: 'model', customComponents: [], loadedModules: [] });
    expect(first.verdict).toBe('pass');
    const repro = cli('repro', String(first.seed), '--json');
    expect(repro.status).toBe(0);
    expect(JSON.parse(repro.stdout)).toEqual(first);
  });

  it('a violated invariant exits 1 and names the invariant', () => {
    const run = cli('run', 'send-mid-turn', '--seed', '2', '--bugs', 'send-flag', '--json');
    const json = JSON.parse(run.stdout) as { verdict: string; violations: { invariant: string; message: string; step: number }[] };
    expect(run.status).toBe(1);
    expect(json.verdict).toBe('fail');
    expect(json.violations[0]).toEqual({ invariant: 'no-lost-reply', class: 'correctness', message: expect.any(String), step: expect.any(Number) });
  });

  it('fuzz --json reports runs over all scenarios, failures, wall time and fault coverage by phase', () => {
    const result = cli('fuzz', '--all', '--runs', '3', '--seed', '4', '--json');
    expect(result.status).toBe(0);
    const json = JSON.parse(result.stdout) as { runs: number; failures: unknown[]; firstFailureRun: number | null; wallMs: number; coverage: Record<string, Record<string, number>> };
    expect(json.runs).toBe(3 * scenarioNames.length);
    expect(json.failures).toEqual([]);
    expect(json.firstFailureRun).toBeNull();
    expect(json.wallMs).toBeGreaterThan(0);
    expect(Object.keys(json.coverage)).toEqual([
      'kill-gateway', 'kill-runner', 'kill-tool-server', 'kill-node-host', 'power-loss', 'partition', 'hold', 'reset', 'drop', 'duplicate', 'reorder',
      'disk-tear', 'disk-writeback', 'sql-busy', 'model-error', 'model-slow', 'model-outage', 'stall', 'startup-slow',
      // What the second writers did (the delivery mirror, the session write lock, Hermes' gateway append, and, issue 44
      // item 5, Hermes' dashboard and a cached agent rebuilt for it).
      'mirror-appended', 'mirror-deduped', 'mirror-lock-busy', 'lock-reclaimed', 'append-skip-db', 'append-to-db', 'append-backfill',
      'dashboard-turn', 'cached-agent-rebuilt-for-another-writer',
      'failed-row', 'poison-hang', 'stream-cut', 'session-rotation', 'keyless-run', 'interrupt-abort',
      // Issue 24: restarts that waited out a start-up; Hermes' runs ended at their first failure, LLM calls retried in a run.
      'startup-wait', 'first-failure-end', 'agent-retry',
      // Issue 24 item 2: where the faults met scheduled tasks.
      'task-kill', 'task-repoll', 'task-fanout-restart',
      // Issue 24 item 1: where the faults met a WebChat client's connection.
      'client-drop-before-ack', 'client-drop-mid-stream', 'client-drop-after-final', 'client-retry', 'client-dedupe', 'client-replay',
      // Issue 24 items 3, 5 and 4: compactions, the gateway's own heartbeat runs, and the enveloped prompt's rewrite.
      'compaction', 'compaction-kill', 'compaction-summary-failed',
      'heartbeat-run-timeout', 'heartbeat-run-failover', 'heartbeat-run-failed', 'heartbeat-run-kill',
      // Issue 44 item 4: a retention window of the model closing inside a run.
      'exec-resend-after-window', 'claim-stale-kill', 'heartbeat-stale-kill', 'tool-deadline-passed', 'redelivery-ended',
      // Issue 48 item 6: a poll that skipped tool responses above a message it took, and one whose message lay beyond
      // the window a poll that limits before it filters takes.
      'poll-skipped-rows', 'poll-window-filled',
      // Issue 48 item 4: a write that stalled, one that landed after its stall, a deadline that fired while a stalled
      // write was pending, and such a write landing after the deadline gave up.
      'write-stall', 'write-stall-landed', 'deadline-during-stall', 'stall-landed-after-deadline',
      // Issue 48 item 5: a cron retry that overlapped the attempt it replaced, an answer after its attempt timed out, the
      // other attempts' work reconciled with the occurrence, an occurrence handed to the chat lane, and a call its
      // dependency read only after the caller had given up on it.
      'cron-retry-overlapped', 'cron-late-completion', 'cron-answer-reconciled', 'cron-handed-over', 'dependency-late-for-caller',
      // Issue 48 item 3: a task's output whose announce did not report delivery in time, and one the fallback delivered.
      'announce-failed', 'delivered-by-fallback',
      // Issue 48 item 2, block streaming: a block streamed as its own send, a final that left out what streamed, a final
      // that sent only the rest of a stream a fault cut.
      'blocks-streamed', 'final-deduplicated', 'block-stream-cut',
      'envelope-rewritten', 'envelope-kill', 'envelope-met',
      // Issue 48 items 1 and 2: the platform's refusals, an ambiguous answer (of a whole message, of a part), a reply in
      // parts, a reply given up.
      'send-rate-limited', 'send-chat-not-found', 'send-listener-not-ready', 'send-too-long', 'send-ambiguous', 'part-ambiguous', 'reply-in-parts', 'delivery-given-up',
    ]);
    expect(Object.keys(json.coverage['kill-runner'] ?? {})).toEqual(['idle', 'ingest', 'prompt-persisted', 'model-call', 'abort', 'tool-send', 'result-dispatch', 'flush', 'delivery']);
  });

  it('list prints every invariant with its one-line meaning, no-process-crash included', () => {
    const text = cli('list').stdout;
    const json = JSON.parse(cli('list', '--json').stdout) as { invariantDetails: { name: string; class: string; meaning: string }[] };
    expect(json.invariantDetails.map((invariant) => invariant.name)).toContain('no-process-crash');
    for (const invariant of json.invariantDetails) {
      expect(invariant.meaning.length).toBeGreaterThan(20);
      expect(text).toMatch(new RegExp(`^  ${invariant.name} +${invariant.meaning.slice(0, 20).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`, 'm'));
    }
  });

  it('list --json names every scenario, bug and invariant', () => {
    const json = JSON.parse(cli('list', '--json').stdout) as { scenarios: { name: string }[]; bugs: { id: string }[]; invariants: string[] };
    // Every built-in scenario, in the registry's order (the registry is the one list; a new scenario joins it there).
    expect(json.scenarios.map((scenario) => scenario.name)).toEqual(scenarioNames);
    expect(json.bugs.map((bug) => bug.id)).toEqual(['exec-replay', 'send-dup', 'send-flag', 'send-stale', 'orphan-leaf', 'flush-cursor', 'exec-dedupe-memory', 'sent-payloads-pr2531', 'orphan-rewrite-inplace', 'cursor-realign-gateway']);
    expect(json.invariants).toEqual(['one-assistant-row-per-visible-reply', 'no-double-ingestion', 'no-duplicate-visible-reply', 'no-lost-reply', 'transcript-consistent', 'no-lost-user-message', 'every-inbound-answered', 'quiescent-after-heal', 'answered-in-time', 'supervision', 'failure-notice-final', 'one-send-in-flight', 'effect-at-most-once', 'context-holds-durable-turns']);
  });
});
