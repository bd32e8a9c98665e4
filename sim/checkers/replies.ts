// Reply invariants, decided from the ledger's attribution of what the user saw (attribution.ts) and the durable
// state in the real formats (durable.ts):
// - one-assistant-row-per-visible-reply: every reply the user saw has exactly one assistant row in state.db and
//   exactly one assistant entry on the JSONL active branch: a tool payload the row carrying its (API-issued) tool-call
//   id, a closing-text block the row holding the answer's closing text; no answer is written twice; and no durable
//   assistant row is something the LLM never produced (every row is an answer's closing text, a carrier of tool
//   calls the API issued in that session, or one of the system's own canned replies); a delivery mirror (an
//   assistant entry with OpenClaw's mirror markers) is a copy of what the user saw, not an answer: it counts for none
//   of the rules above, and each one must copy a message shown in its session, no text mirrored more often than shown;
// - no-duplicate-visible-reply: every message the user saw fills an open slot of an answer (a payload shown twice
//   for one answer, or an earlier answer's reply shown again for a later message, finds none);
// - no-lost-reply: every slot of every standing answer is shown.
import { type DbRow, familyBranch, familyEntries, familyRows, type JsonlEntry } from './durable.ts';
import type { Attribution, LogicalAnswer, Slot } from './attribution.ts';
import { cannedReplies, normalized, type Observations, stepAt } from './observations.ts';
import { classOf, type InvariantName, type Violation } from './violation.ts';

export function checkReplies(o: Observations, attributions: Map<string, Attribution>, out: Violation[]): void {
  for (const attribution of attributions.values()) {
    checkShownRows(o, attribution, out);
    checkProducedRows(o, attribution, out);
    checkUnexplained(o, attribution, out);
    checkLost(o, attribution, out);
    checkMirrors(o, attribution.session, out);
  }
}

function violation(o: Observations, invariant: InvariantName, message: string, atMs: number): Violation {
  return { invariant, message, step: stepAt(o, atMs), timeMs: atMs, class: classOf(invariant) };
}

interface Durable {
  rows: DbRow[];
  branch: JsonlEntry[];
}

function durableOf(o: Observations, session: string): Durable {
  return {
    rows: familyRows(o.durable, session).filter((row) => row.role === 'assistant'),
    branch: familyBranch(o.durable, session).filter((entry) => entry.role === 'assistant' && !entry.mirror),
  };
}

function carriersOf(items: readonly { toolCallIds: string[] }[], slot: Slot): number {
  const ids = slot.toolCalls.map((call) => call.id);
  return items.filter((item) => item.toolCallIds.some((id) => ids.includes(id))).length;
}

function finalsOf(items: readonly { content?: string; text?: string }[], answer: LogicalAnswer): number {
  return items.filter((item) => (item.content ?? item.text) === answer.result).length;
}

function checkShownRows(o: Observations, a: Attribution, out: Violation[]): void {
  const durable = durableOf(o, a.session);
  for (const [shown, slot] of a.slotOf) {
    const fromTool = slot.toolCalls.length > 0;
    const inDb = fromTool ? carriersOf(durable.rows, slot) : finalsOf(durable.rows, slot.answer);
    const onBranch = fromTool ? carriersOf(durable.branch, slot) : finalsOf(durable.branch, slot.answer);
    const problem =
      inDb !== 1 ? `state.db has ${inDb} assistant rows for it` : onBranch !== 1 ? `the JSONL active branch has ${onBranch} assistant entries for it` : undefined;
    if (problem === undefined) continue;
    const what = fromTool ? `tool call ${slot.toolCalls.map((call) => call.id).join(', ')}` : 'closing text';
    out.push(violation(o, 'one-assistant-row-per-visible-reply', `${a.session}: the user saw "${shown.text}" (${what} of the answer to ${subjectsText(slot.answer)}), but ${problem}`, shown.atMs));
  }
}

function checkProducedRows(o: Observations, a: Attribution, out: Violation[]): void {
  const durable = durableOf(o, a.session);
  const results = new Set(a.answers.map((answer) => answer.result));
  const callIds = new Set(a.answers.flatMap((answer) => answer.toolCalls.map((call) => call.id)));
  const canned = cannedReplies.map(normalized);
  const origin = (text: string, toolCallIds: readonly string[]): string | undefined => {
    const unknown = toolCallIds.filter((id) => !callIds.has(id));
    if (unknown.length > 0) return `a tool call the LLM never made (${unknown.join(', ')})`;
    if (text.length === 0) return toolCallIds.length > 0 ? undefined : 'nothing the LLM produced (an empty row)';
    if (results.has(text) || canned.some((reply) => normalized(text).includes(reply))) return undefined;
    return `text the LLM never produced ("${text.slice(0, 60)}")`;
  };
  for (const row of durable.rows) {
    const problem = origin(row.content, row.toolCallIds);
    if (problem !== undefined) out.push(violation(o, 'one-assistant-row-per-visible-reply', `${a.session}: state.db assistant row ${row.id} carries ${problem}`, o.endMs));
  }
  for (const entry of durable.branch) {
    const problem = origin(entry.text, entry.toolCallIds);
    if (problem !== undefined) out.push(violation(o, 'one-assistant-row-per-visible-reply', `${a.session}: JSONL assistant entry ${entry.id} carries ${problem}`, o.endMs));
  }
  for (const answer of a.answers) {
    for (const [where, items] of [['state.db', durable.rows], ['the JSONL active branch', durable.branch]] as const) {
      const finals = finalsOf(items, answer);
      if (finals > 1) out.push(violation(o, 'one-assistant-row-per-visible-reply', `${a.session}: ${where} holds the closing text of the answer to ${subjectsText(answer)} ${finals} times`, o.endMs));
      for (const slot of answer.slots.filter((candidate) => candidate.toolCalls.length > 0)) {
        const carriers = carriersOf(items, slot);
        if (carriers > 1) out.push(violation(o, 'one-assistant-row-per-visible-reply', `${a.session}: ${where} holds tool call ${slot.toolCalls[0]?.id ?? '?'} ${carriers} times`, o.endMs));
      }
    }
  }
}

function checkUnexplained(o: Observations, a: Attribution, out: Violation[]): void {
  for (const { shown, reason, repeats } of a.unexplained) {
    const message =
      reason === 'shown-again'
        ? `${a.session}: the user saw "${shown.text}" again${repeats === undefined ? '' : ` (already shown as the answer to ${subjectsText(repeats.answer)})`}, with no new answer producing it`
        : `${a.session}: the user saw "${shown.text}", which no LLM answer produced`;
    out.push(violation(o, reason === 'shown-again' ? 'no-duplicate-visible-reply' : 'one-assistant-row-per-visible-reply', message, shown.atMs));
  }
}

function checkLost(o: Observations, a: Attribution, out: Violation[]): void {
  for (const answer of a.answers) {
    if (answer.superseded || answer.gaveUp) continue;
    for (const slot of answer.slots) {
      if (slot.shownBy !== null) continue;
      const how = slot.toolCalls.length > 0 ? `the tool message` : `the reply`;
      out.push(violation(o, 'no-lost-reply', `${a.session}: ${how} "${slot.text}" the LLM produced for ${subjectsText(answer)} was never shown`, answer.first.returnedAtMs));
    }
  }
}

/**
 * A second writer's copy of a delivered reply (OpenClaw's delivery mirror) is known by its markers, not by any id of
 * the system's: every mirror entry in the files of the session's family (each /clear starts a file; a mirror written
 * into an older one counts as well) copies a message the user was shown in that session, and no text has more mirror
 * entries than showings (a redelivery the platform dropped, mirrored again, is a second copy).
 */
function checkMirrors(o: Observations, session: string, out: Violation[]): void {
  const mirrors = familyEntries(o.durable, session).filter((entry) => entry.mirror);
  if (mirrors.length === 0) return;
  const shownCounts = new Map<string, number>();
  for (const fact of o.ledger.shown.filter((shown) => shown.sessionKey === session)) shownCounts.set(normalized(fact.text), (shownCounts.get(normalized(fact.text)) ?? 0) + 1);
  const mirrorCounts = new Map<string, number>();
  for (const entry of mirrors) mirrorCounts.set(normalized(entry.text), (mirrorCounts.get(normalized(entry.text)) ?? 0) + 1);
  for (const [text, count] of mirrorCounts) {
    const shownCount = shownCounts.get(text) ?? 0;
    if (count <= shownCount) continue;
    const what = shownCount === 0 ? 'the user was never shown it' : `the user was shown it ${shownCount} times`;
    out.push(violation(o, 'one-assistant-row-per-visible-reply', `${session}: the JSONL files hold ${count} delivery mirror entries of "${text.slice(0, 60)}", but ${what}`, o.endMs));
  }
}

export function subjectsText(answer: LogicalAnswer): string {
  return answer.subjects.length === 0 ? 'a prompt with no known message' : answer.subjects.join(' ');
}
