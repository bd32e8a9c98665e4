// Reply invariants, over what the user saw and the final durable state:
// - one-assistant-row-per-visible-reply: a reply a tool sent maps to the assistant row carrying that tool call; a
//   reply from the result text maps to the turn's final assistant row; each must exist exactly once in state.db
//   and on the JSONL active branch; and no durable assistant row is a reply nobody produced;
// - no-duplicate-visible-reply: one turn never shows the same payload twice (after whitespace normalisation);
// - no-lost-reply: every payload the model sent through a tool is visible, and every block of a turn's last result
//   is visible for that turn unless it repeats verbatim a payload a tool sent in the same turn.
import { activeBranchOf, isVerbatimDuplicate, type SessionEntry, type VisibleMessage } from '../../src/index.ts';
import { normalized, notes, type Observations, replyPayloads } from './observations.ts';
import { classOf, type InvariantName, type Violation } from './violation.ts';

export function checkReplies(o: Observations, out: Violation[]): void {
  checkAssistantRows(o, out);
  checkProducedRows(o, out);
  checkDuplicates(o, out);
  checkLostReplies(o, out);
}

function violation(o: Observations, invariant: InvariantName, message: string, step?: number): Violation {
  const event = step === undefined ? o.events.at(-1) : o.events[step];
  return { invariant, message, step: step ?? Math.max(0, o.events.length - 1), timeMs: event?.timeMs ?? o.endMs, class: classOf(invariant) };
}

/** Trace index of the platform accepting a reply. */
export function visibleStep(o: Observations, key: string): number | undefined {
  const index = o.events.findIndex((event) => event.kind === 'model.visible' && event.fields.key === key);
  return index < 0 ? undefined : index;
}

function checkAssistantRows(o: Observations, out: Violation[]): void {
  for (const reply of replyPayloads(o.visible)) {
    const entries = o.transcripts.get(reply.sessionKey)?.entries ?? [];
    const branch = activeBranchOf(entries);
    const fromTool = reply.source === 'tool';
    const rows = o.stateRows.filter((row) =>
      row.sessionId === reply.sessionKey && row.role === 'assistant' && (fromTool ? carriesCall(row.toolCalls, reply.key) : row.toolCalls === null && row.turnId === reply.turnId),
    );
    const onBranch = branch.filter((entry) => entry.message.role === 'assistant' && (fromTool ? entry.message.toolCalls?.some((call) => call.id === reply.key) === true : entry.message.toolCalls === undefined && entry.turnId === reply.turnId));
    const problem =
      rows.length !== 1
        ? `state.db has ${rows.length} assistant rows for it`
        : onBranch.length !== 1
          ? `the JSONL active branch has ${onBranch.length} assistant entries for it`
          : !fromTool && !(rows[0]?.content ?? '').includes(reply.text)
            ? 'its final assistant row does not contain it'
            : undefined;
    if (problem !== undefined) {
      out.push(violation(o, 'one-assistant-row-per-visible-reply', `${describe(reply)}: ${problem}`, visibleStep(o, reply.key)));
    }
  }
}

/** The other half: no durable assistant row (state.db or JSONL active branch) is a reply nobody produced. */
function checkProducedRows(o: Observations, out: Violation[]): void {
  // Each `answer` note records what a turn produced (its tool calls are <turn>:tool:0..n-1) before it is written.
  const toolCallsOf = new Map<string, number>();
  for (const fields of notes(o.events, 'answer')) {
    const turn = String(fields.turn);
    toolCallsOf.set(turn, Math.max(toolCallsOf.get(turn) ?? 0, Number(fields.toolCalls)));
  }
  const rowOrigin = (turnId: string, callIds: readonly string[]): string | undefined => {
    const calls = toolCallsOf.get(turnId);
    if (calls === undefined) return `a reply for turn ${turnId}, which produced none`;
    const unknown = callIds.filter((id) => !Array.from({ length: calls }, (_, index) => `${turnId}:tool:${index}`).includes(id));
    return unknown.length === 0 ? undefined : `a tool call (${unknown.join(', ')}) the model never made`;
  };
  for (const row of o.stateRows) {
    if (row.role !== 'assistant') continue;
    const problem = rowOrigin(row.turnId, row.toolCalls === null ? [] : (JSON.parse(row.toolCalls) as { id: string }[]).map((call) => call.id));
    if (problem !== undefined) out.push(violation(o, 'one-assistant-row-per-visible-reply', `state.db assistant row ${row.id} (${row.sessionId}) carries ${problem}`));
  }
  for (const [session, transcript] of o.transcripts) {
    for (const entry of activeBranchOf(transcript.entries)) {
      if (entry.message.role !== 'assistant') continue;
      const problem = rowOrigin(entry.turnId, (entry.message.toolCalls ?? []).map((call) => call.id));
      if (problem !== undefined) out.push(violation(o, 'one-assistant-row-per-visible-reply', `${session}.jsonl assistant entry ${entry.id} carries ${problem}`));
    }
  }
}

function carriesCall(toolCalls: string | null, callId: string): boolean {
  if (toolCalls === null) return false;
  const calls = JSON.parse(toolCalls) as { id: string }[];
  return calls.some((call) => call.id === callId);
}

function checkDuplicates(o: Observations, out: Violation[]): void {
  const seen = new Map<string, VisibleMessage>();
  for (const reply of replyPayloads(o.visible)) {
    const key = `${reply.sessionKey}\u0000${reply.turnId}\u0000${normalized(reply.text)}`;
    const first = seen.get(key);
    if (first === undefined) {
      seen.set(key, reply);
      continue;
    }
    out.push(
      violation(o, 'no-duplicate-visible-reply', `turn ${reply.turnId} showed "${reply.text}" twice (${first.source} ${first.key}, then ${reply.source} ${reply.key})`, visibleStep(o, reply.key)),
    );
  }
}

function checkLostReplies(o: Observations, out: Violation[]): void {
  const lastResult = new Map<string, { blocks: string[]; step: number }>();
  o.events.forEach((event, step) => {
    if (event.kind === 'model.result') lastResult.set(String(event.fields.turn), { blocks: JSON.parse(String(event.fields.blocks)) as string[], step });
  });
  const sentByTurn = new Map<string, string[]>();
  for (const sent of notes(o.events, 'tool-sent')) {
    if (sent.tool === 'add_reaction') continue;
    const list = sentByTurn.get(String(sent.turn)) ?? [];
    list.push(String(sent.text));
    sentByTurn.set(String(sent.turn), list);
  }
  // What a tool sent mid-turn is a reply too: every payload the model asked a tool to send must reach the user,
  // unless its turn was merged into another (which answers it afresh) before the call went out.
  const ownAnswer = new Set(o.inbound.filter((row) => row.status === 'completed' && row.mergedInto === null).map((row) => row.id));
  const toolCalls = new Map<string, { turn: string; text: string; step: number }>();
  o.events.forEach((event, step) => {
    if (event.kind === 'model.tool-call' && event.fields.tool !== 'add_reaction' && ownAnswer.has(String(event.fields.turn))) {
      toolCalls.set(String(event.fields.call), { turn: String(event.fields.turn), text: String(event.fields.text), step });
    }
  });
  for (const [callId, call] of toolCalls) {
    if (!o.visible.some((reply) => reply.key === callId)) out.push(violation(o, 'no-lost-reply', `turn ${call.turn}: the tool message "${call.text}" (${callId}) was never delivered`, call.step));
  }
  for (const [turnId, result] of lastResult) {
    const sent = sentByTurn.get(turnId) ?? [];
    for (const block of result.blocks) {
      if (isVerbatimDuplicate(block, sent)) continue;
      const shown = o.visible.some((reply) => reply.turnId === turnId && normalized(reply.text) === normalized(block));
      if (!shown) out.push(violation(o, 'no-lost-reply', `turn ${turnId}: the model's reply "${block}" was never delivered`, result.step));
    }
  }
}

function describe(reply: VisibleMessage): string {
  return `visible ${reply.source} reply "${reply.text}" (turn ${reply.turnId}, ${reply.sessionKey})`;
}

export type { SessionEntry };
