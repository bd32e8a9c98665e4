// Node-event ingestion (OpenClaw src/gateway/server-node-events.ts) and the heartbeat runner, in whole runs of the
// model: `exec.started` is not silent, it becomes the untrusted system event `Exec started (node=<nodeId> id=<runId>):
// <command>` (contextKey `exec:<runId>`) and an `exec-event` wake, as `exec.finished` does. A heartbeat whose drained
// events hold an exec completion gets the exec-event prompt; one with only a start gets the heartbeat prompt, which
// the world's LLM answers HEARTBEAT_OK (nothing is shown). A session key that is not an agent session key (the node
// default `node-<nodeId>`) gets an unscoped wake, which the heartbeat runner serves on the agent's main session.
import { describe, expect, it } from 'vitest';
import { type BuiltModel, execEventPrompt, execEventText, heartbeatPrompt, inboundPath } from '../../../src/index.ts';
import type { Simulation } from '../../../sim/kernel/simulation.ts';
import type { NodeEvent } from '../../../src/protocol.ts';
import type { RunResult } from '../../../sim/run/harness.ts';
import type { WorkloadStep } from '../../../sim/run/plan.ts';
import { loadSqlJs } from '../../../sim/kernel/sqlite.ts';
import { handPlan, llmAnswers, llmPrompts, notes, session0, visible, withRun } from '../support.ts';

const sql = await loadSqlJs();

function exec(durationMs: number, exitCode: number, output: string): WorkloadStep {
  return { kind: 'exec', atMs: 1_000, session: 0, durationMs, exitCode, output };
}

/** The system event lines of a prompt, without their timestamps. */
function systemLines(prompt: string): string[] {
  return prompt
    .split('\n')
    .filter((line) => line.startsWith('System'))
    .map((line) => line.replace(/ \[\d+\] /, ' '));
}

function command(result: RunResult): string {
  const fact = result.ledger.commands[0];
  if (fact === undefined) throw new Error('no command in the ledger');
  return fact.command;
}

describe('exec.started', () => {
  it('a 5 s command: the start gets a heartbeat of its own (HEARTBEAT_OK, nothing shown), the finish an exec-event heartbeat', async () => {
    await withRun(sql, { bugs: [], plan: handPlan([exec(5_000, 1, 'boom')]) }, (result) => {
      const started = `System (untrusted): Exec started (node=node-1 id=run-0): ${command(result)}`;
      const [first, second, ...more] = llmPrompts(result);
      expect(more).toEqual([]);
      expect(systemLines(first ?? '')).toEqual([started]);
      expect(first?.endsWith(`\n\n${heartbeatPrompt}`)).toBe(true);
      expect(systemLines(second ?? '')).toEqual(['System (untrusted): Exec finished (node=node-1 id=run-0, code 1)', 'System (untrusted): boom']);
      expect(second?.endsWith(`\n\n${execEventPrompt}`)).toBe(true);
      expect(llmAnswers(result)[0]?.result.startsWith('HEARTBEAT_OK\n')).toBe(true);
      expect(visible(result)).toHaveLength(1);
      // Both events were queued for the session with the run's context key and woke its heartbeat.
      expect(notes(result, 'system-event').map((note) => [note.fields.session, note.fields.event, note.fields.queued])).toEqual([
        [session0, 'exec.started', true],
        [session0, 'exec.finished', true],
      ]);
      expect(result.violations).toEqual([]);
    });
  });

  it('a 100 ms command: start and finish are drained together into one exec-event prompt, start first', async () => {
    await withRun(sql, { bugs: [], plan: handPlan([exec(100, 2, 'error: file not found')]) }, (result) => {
      const prompts = llmPrompts(result);
      expect(prompts).toHaveLength(1);
      expect(systemLines(prompts[0] ?? '')).toEqual([
        `System (untrusted): Exec started (node=node-1 id=run-0): ${command(result)}`,
        'System (untrusted): Exec finished (node=node-1 id=run-0, code 2)',
        'System (untrusted): error: file not found',
      ]);
      expect(prompts[0]?.endsWith(execEventPrompt)).toBe(true);
      expect(visible(result)).toHaveLength(1);
      expect(result.violations).toEqual([]);
    });
  });

  it('a silent command (code 0, no output): only the start reaches a prompt, answered HEARTBEAT_OK; nothing is shown', async () => {
    await withRun(sql, { bugs: [], plan: handPlan([exec(5_000, 0, '')]) }, (result) => {
      const prompts = llmPrompts(result);
      expect(prompts).toHaveLength(1);
      expect(systemLines(prompts[0] ?? '')).toEqual([`System (untrusted): Exec started (node=node-1 id=run-0): ${command(result)}`]);
      expect(visible(result)).toEqual([]);
      expect(result.violations).toEqual([]);
    });
  });

  it('renders the one-line forms, leaving out a missing command or run id', () => {
    const event: NodeEvent = { type: 'node.event', event: 'exec.started', nodeId: 'n1', runId: 'r1', sessionKey: 's', command: '  npm test ', exitCode: 0, timedOut: false, output: '' };
    expect(execEventText(event)).toBe('Exec started (node=n1 id=r1): npm test');
    expect(execEventText({ ...event, command: '' })).toBe('Exec started (node=n1 id=r1)');
    expect(execEventText({ ...event, runId: '' })).toBe('Exec started (node=n1): npm test');
    expect(execEventText({ ...event, event: 'exec.finished', timedOut: true })).toBe('Exec finished (node=n1 id=r1, timeout)');
  });
});

describe('an unscoped wake', () => {
  it('a node event without a session key is queued under node-<nodeId>; its wake is served on the main session, not a chat session', async () => {
    const prepare = (sim: Simulation, model: BuiltModel) =>
      sim.at(1_000, () => model.nodeHost.run({ runId: 'run-x', sessionKey: '', command: 'npm test', durationMs: 2_000, exitCode: 1, timedOut: false, output: 'boom' }));
    await withRun(sql, { bugs: [], plan: handPlan([]), prepare }, (result) => {
      expect(notes(result, 'system-event').map((note) => [note.fields.session, note.fields.event, note.fields.queued])).toEqual([
        ['node-node-1', 'exec.started', true],
        ['node-node-1', 'exec.finished', true],
      ]);
      // Each wake was unscoped: the heartbeat runner looked for the main session, which this gateway does not serve.
      expect(notes(result, 'heartbeat-skip').map((note) => [note.fields.session, note.fields.reason])).toEqual([
        ['agent:main:main', 'no-session'],
        ['agent:main:main', 'no-session'],
      ]);
      expect(llmPrompts(result)).toEqual([]);
      expect(result.sim.sqlite.inspect(inboundPath(session0), "SELECT id FROM messages_in WHERE kind = 'system'")).toEqual([]);
      // Nothing durable will ever carry them, so both were acknowledged at once: no resend.
      expect(result.sim.trace.events.filter((event) => event.kind === 'net.resend')).toEqual([]);
    });
  });
});
