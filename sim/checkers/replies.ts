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
// Each violation is placed where its evidence became true (placement.ts): the showing, the commit of the row that made
// one too many (or that the LLM never produced), the check that first saw such an entry; a lost reply at the last
// durable record of it (the row or entry holding it: the system had it, and then never showed it).
import type { AgentDbEvent } from './agent-db.ts';
import { agentDbTranscriptsOf, type DbRow, familyBranch, familyEntries, familyRows, type JsonlEntry } from './durable.ts';
import type { Attribution, LogicalAnswer, Slot } from './attribution.ts';
import type { ShownFact } from '../world/ledger.ts';
import { cannedRepliesIn, normalized, type Observations, partsIn, shownIn } from './observations.ts';
import { later, type Place, Placement } from './placement.ts';
import { givenUpVisibly, refusalNote } from './refusals.ts';
import { placedViolation, type Violation } from './violation.ts';

export function checkReplies(o: Observations, attributions: Map<string, Attribution>, out: Violation[], place = new Placement(o)): void {
  for (const attribution of attributions.values()) {
    checkShownRows(o, attribution, out, place);
    checkUnfinishedRows(o, attribution, out, place);
    checkProducedRows(o, attribution, out, place);
    checkUnexplained(attribution, out, place);
    checkLost(o, attribution, out, place);
    checkMirrors(o, attribution.session, out, place);
    checkAgentDbMirrors(o, attribution.session, out, place);
  }
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

function carriersOf<T extends { toolCallIds: string[] }>(items: readonly T[], slot: Slot): T[] {
  const ids = slot.toolCalls.map((call) => call.id);
  return items.filter((item) => item.toolCallIds.some((id) => ids.includes(id)));
}

function finalsOf<T extends { content?: string; text?: string }>(items: readonly T[], answer: LogicalAnswer): T[] {
  return items.filter((item) => (item.content ?? item.text) === answer.result);
}

/** Where a durable copy became durable: a state.db row's commit, or the check that first saw a JSONL entry. */
function copyPlace(place: Placement, session: string, copy: DbRow | JsonlEntry, what: string): Place {
  return 'timestamp' in copy ? place.rowCommit(copy, what) : place.entrySeen(session, copy, what);
}

/** The place of the copy that made one too many (the second), among copies in time (rows) or file (entries) order. */
function extraCopyPlace(place: Placement, session: string, copies: readonly (DbRow | JsonlEntry)[], what: string): Place {
  const places = copies.map((copy) => copyPlace(place, session, copy, `a second copy of ${what}`)).sort((a, b) => a.step - b.step);
  return places[1] ?? places[0] ?? place.end(`a second copy of ${what} is durable`);
}

function checkShownRows(o: Observations, a: Attribution, out: Violation[], place: Placement): void {
  const durable = durableOf(o, a.session);
  for (const [shown, slot] of a.slotOf) {
    const fromTool = slot.toolCalls.length > 0;
    const inDb = fromTool ? carriersOf(durable.rows, slot) : finalsOf(durable.rows, slot.answer);
    const onBranch = fromTool ? carriersOf(durable.branch, slot) : finalsOf(durable.branch, slot.answer);
    const problem =
      inDb.length !== 1
        ? `state.db has ${inDb.length} assistant rows for it`
        : onBranch.length !== 1
          ? `the JSONL active branch has ${onBranch.length} assistant entries for it`
          : undefined;
    if (problem === undefined) continue;
    const what = fromTool ? `tool call ${slot.toolCalls.map((call) => call.id).join(', ')}` : 'closing text';
    // Shown, and with no row or a second one: the evidence is complete at the later of the showing and the extra copy.
    const copies = inDb.length !== 1 ? inDb : onBranch;
    const seen = place.showing(shown, `the user is shown "${shown.text}" (${what}); ${problem}`);
    const at = copies.length > 1 ? later(seen, extraCopyPlace(place, a.session, copies, `"${shown.text}" (${what})`)) : seen;
    out.push(placedViolation('one-assistant-row-per-visible-reply', `${a.session}: the user saw "${shown.text}" (${what} of the answer to ${subjectsText(slot.answer)}), but ${problem}`, at));
  }
}

/**
 * The first parts of a reply the user saw, though never the whole (a stream of blocks cut short, a reply in parts
 * given up midway: parts.ts `unfinished`), are still something the user saw: the answer that produced the text has its
 * assistant row in state.db and its entry on the JSONL active branch, as a reply shown whole has. (Which of them is
 * exactly one is judged where the answer's other replies are shown, or not at all: no copy is counted here.)
 */
function checkUnfinishedRows(o: Observations, a: Attribution, out: Violation[], place: Placement): void {
  const durable = durableOf(o, a.session);
  for (const { text, parts } of partsIn(o, a.session).unfinished) {
    const slots = a.answers.flatMap((answer) => answer.slots.filter((slot) => slot.text === text));
    if (slots.length === 0) continue;
    const held = (slot: Slot): boolean => (slot.toolCalls.length > 0 ? carriersOf(durable.rows, slot).length > 0 && carriersOf(durable.branch, slot).length > 0 : finalsOf(durable.rows, slot.answer).length > 0 && finalsOf(durable.branch, slot.answer).length > 0);
    if (slots.some(held)) continue;
    const slot = slots[0] as Slot;
    const last = parts.at(-1) as ShownFact;
    const problem = finalsOf(durable.rows, slot.answer).length === 0 ? 'state.db has no assistant row for it' : 'the JSONL active branch has no assistant entry for it';
    out.push(placedViolation('one-assistant-row-per-visible-reply', `${a.session}: the user saw ${parts.length} part(s) of "${text.slice(0, 60)}…" (closing text of the answer to ${subjectsText(slot.answer)}, never shown whole), but ${problem}`, place.showing(last, `the user is shown part ${parts.length} of "${text.slice(0, 40)}…"; ${problem}`)));
  }
}

function checkProducedRows(o: Observations, a: Attribution, out: Violation[], place: Placement): void {
  const durable = durableOf(o, a.session);
  const results = new Set(a.answers.map((answer) => answer.result));
  const callIds = new Set(a.answers.flatMap((answer) => answer.toolCalls.map((call) => call.id)));
  const canned = cannedRepliesIn(o).map(normalized);
  const origin = (text: string, toolCallIds: readonly string[]): string | undefined => {
    const unknown = toolCallIds.filter((id) => !callIds.has(id));
    if (unknown.length > 0) return `a tool call the LLM never made (${unknown.join(', ')})`;
    if (text.length === 0) return toolCallIds.length > 0 ? undefined : 'nothing the LLM produced (an empty row)';
    if (results.has(text) || canned.some((reply) => normalized(text).includes(reply))) return undefined;
    return `text the LLM never produced ("${text.slice(0, 60)}")`;
  };
  for (const row of durable.rows) {
    const problem = origin(row.content, row.toolCallIds);
    if (problem !== undefined) out.push(placedViolation('one-assistant-row-per-visible-reply', `${a.session}: state.db assistant row ${row.id} carries ${problem}`, place.rowCommit(row, `assistant row ${row.id}, which carries ${problem},`)));
  }
  for (const entry of durable.branch) {
    const problem = origin(entry.text, entry.toolCallIds);
    if (problem !== undefined) out.push(placedViolation('one-assistant-row-per-visible-reply', `${a.session}: JSONL assistant entry ${entry.id} carries ${problem}`, place.entrySeen(a.session, entry, `assistant entry ${entry.id}, which carries ${problem}`)));
  }
  for (const answer of a.answers) {
    for (const [where, items] of [['state.db', durable.rows], ['the JSONL active branch', durable.branch]] as const) {
      const finals: (DbRow | JsonlEntry)[] = finalsOf<DbRow | JsonlEntry>(items, answer);
      if (finals.length > 1) {
        const at = extraCopyPlace(place, a.session, finals, `the closing text of the answer to ${subjectsText(answer)}`);
        out.push(placedViolation('one-assistant-row-per-visible-reply', `${a.session}: ${where} holds the closing text of the answer to ${subjectsText(answer)} ${finals.length} times`, at));
      }
      for (const slot of answer.slots.filter((candidate) => candidate.toolCalls.length > 0)) {
        const carriers: (DbRow | JsonlEntry)[] = carriersOf<DbRow | JsonlEntry>(items, slot);
        if (carriers.length <= 1) continue;
        const id = slot.toolCalls[0]?.id ?? '?';
        out.push(placedViolation('one-assistant-row-per-visible-reply', `${a.session}: ${where} holds tool call ${id} ${carriers.length} times`, extraCopyPlace(place, a.session, carriers, `tool call ${id}`)));
      }
    }
  }
}

function checkUnexplained(a: Attribution, out: Violation[], place: Placement): void {
  for (const { shown, reason, repeats } of a.unexplained) {
    const message =
      reason === 'shown-again'
        ? `${a.session}: the user saw "${shown.text}" again${repeats === undefined ? '' : ` (already shown as the answer to ${subjectsText(repeats.answer)})`}, with no new answer producing it`
        : `${a.session}: the user saw "${shown.text}", which no LLM answer produced`;
    const at = place.showing(shown, reason === 'shown-again' ? `the user is shown "${shown.text}" again` : `the user is shown "${shown.text}", which no LLM answer produced`);
    out.push(placedViolation(reason === 'shown-again' ? 'no-duplicate-visible-reply' : 'one-assistant-row-per-visible-reply', message, at));
  }
}

/** The closing text a no-lost-reply violation says was never shown (normalised), if it is about one (a tool message is not). */
export function lostClosingText(violation: Violation): string | undefined {
  if (violation.invariant !== 'no-lost-reply') return undefined;
  return /: the reply "(.*)" the LLM produced for .* was never shown$/s.exec(violation.message)?.[1];
}

function checkLost(o: Observations, a: Attribution, out: Violation[], place: Placement): void {
  for (const answer of a.answers) {
    if (answer.superseded || answer.gaveUp) continue;
    for (const slot of answer.slots) {
      if (slot.shownBy !== null) continue;
      // Given up visibly (issue 48, refusals.ts): the chat was not found, and the give-up is recorded.
      if (givenUpVisibly(o, a.session, slot.text)) continue;
      const how = slot.toolCalls.length > 0 ? `the tool message` : `the reply`;
      out.push(placedViolation('no-lost-reply', `${a.session}: ${how} "${slot.text}" the LLM produced for ${subjectsText(answer)}${refusalNote(o, a.session, slot.text)} was never shown`, lostPlace(o, a.session, slot, place)));
    }
  }
}

/**
 * Where a reply that was never shown was lost: the last durable record of it (the commit of the row, or the check
 * that first saw the entry, holding its closing text or its tool call or the tool's result: the system had the reply
 * then and never showed it, so the dispatch that dropped it follows), else the first kill or crash after the LLM
 * answered (the system lost it with a process), else the answer's return.
 */
function lostPlace(o: Observations, session: string, slot: Slot, place: Placement): Place {
  const ids = slot.toolCalls.map((call) => call.id);
  const fromTool = ids.length > 0;
  const holds = (item: { toolCallIds: string[] }, text: string): boolean => (fromTool ? item.toolCallIds.some((id) => ids.includes(id)) : text === slot.answer.result);
  const what = fromTool ? `tool call ${ids.join(', ')} with "${slot.text}"` : `the closing text with "${slot.text}"`;
  const rows = familyRows(o.durable, session).filter((row) => (row.role === 'assistant' && holds(row, row.content)) || (row.role === 'tool' && row.toolCallId !== null && ids.includes(row.toolCallId)));
  const lastRow = rows.at(-1);
  if (lastRow !== undefined) return place.rowCommit(lastRow, what, ', and is never shown');
  const entries = familyEntries(o.durable, session).filter((entry) => entry.role === 'assistant' && !entry.mirror && holds(entry, entry.text));
  const seen = entries.map((entry) => place.entrySeen(session, entry, what, ', which is never shown')).sort((x, y) => x.step - y.step);
  const lastSeen = seen.at(-1);
  if (lastSeen !== undefined) return lastSeen;
  const kill = place.firstKillAfter(slot.answer.first.returnedAtMs);
  if (kill !== undefined) return place.step(kill.step, `${kill.process} ${kill.kind === 'kill' ? 'is killed' : 'crashes'} after the LLM answered with "${slot.text}"; it is never shown`);
  return place.at(slot.answer.first.returnedAtMs, `the LLM answers with "${slot.text}"; it is never shown`);
}

/**
 * A second writer's copy of a delivered reply (OpenClaw's delivery mirror) is known by its markers, not by any id of
 * the system's: every mirror entry in the files of the session's family (each /clear starts a file; a mirror written
 * into an older one counts as well) copies a message the user was shown in that session, and no text has more mirror
 * entries than showings (a redelivery the platform dropped, mirrored again, is a second copy). The showings are read
 * as the user reads them (observations.ts shownIn): a reply shown in parts is one showing of its whole text, which
 * the mirror copies whole.
 */
function checkMirrors(o: Observations, session: string, out: Violation[], place: Placement): void {
  const mirrors = familyEntries(o.durable, session).filter((entry) => entry.mirror);
  if (mirrors.length === 0) return;
  const shownCounts = new Map<string, number>();
  for (const fact of shownIn(o, session)) shownCounts.set(normalized(fact.text), (shownCounts.get(normalized(fact.text)) ?? 0) + 1);
  const mirrorsOf = new Map<string, JsonlEntry[]>();
  for (const entry of mirrors) mirrorsOf.set(normalized(entry.text), [...(mirrorsOf.get(normalized(entry.text)) ?? []), entry]);
  for (const [text, entries] of mirrorsOf) {
    const shownCount = shownCounts.get(text) ?? 0;
    if (entries.length <= shownCount) continue;
    const what = shownCount === 0 ? 'the user was never shown it' : `the user was shown it ${shownCount} times`;
    // The mirror entry one past the showings, in the order the monitor first saw them durable.
    const mirror = `delivery mirror ${shownCount + 1} of "${text.slice(0, 60)}"`;
    const seen = entries.map((entry) => place.entrySeen(session, entry, mirror, `, shown ${shownCount} times`)).sort((x, y) => x.step - y.step);
    const at = seen[shownCount] ?? place.end(`${mirror} is durable`);
    out.push(placedViolation('one-assistant-row-per-visible-reply', `${session}: the JSONL files hold ${entries.length} delivery mirror entries of "${text.slice(0, 60)}", but ${what}`, at));
  }
}

/**
 * The same rule over a SQLite-era release's agent DB (durable.ts agentDb), where its delivery mirror writes: every
 * mirror event of the key's sessions there copies a message the user was shown in that session, and no text has more
 * mirror events than showings. Placed at the end of the run: the agent DB is read once, as committed then.
 */
function checkAgentDbMirrors(o: Observations, session: string, out: Violation[], place: Placement): void {
  const mirrors = agentDbTranscriptsOf(o.durable, session).flatMap((transcript) => transcript.events.filter((event) => event.mirror));
  if (mirrors.length === 0) return;
  const shownCounts = new Map<string, number>();
  for (const fact of shownIn(o, session)) shownCounts.set(normalized(fact.text), (shownCounts.get(normalized(fact.text)) ?? 0) + 1);
  const mirrorsOf = new Map<string, AgentDbEvent[]>();
  for (const event of mirrors) mirrorsOf.set(normalized(event.text), [...(mirrorsOf.get(normalized(event.text)) ?? []), event]);
  for (const [text, events] of mirrorsOf) {
    const shownCount = shownCounts.get(text) ?? 0;
    if (events.length <= shownCount) continue;
    const what = shownCount === 0 ? 'the user was never shown it' : `the user was shown it ${shownCount} times`;
    const at = place.end(`delivery mirror ${shownCount + 1} of "${text.slice(0, 60)}" is in the agent DB`);
    out.push(placedViolation('one-assistant-row-per-visible-reply', `${session}: the agent DB holds ${events.length} delivery mirror events of "${text.slice(0, 60)}", but ${what}`, at));
  }
}

export function subjectsText(answer: LogicalAnswer): string {
  return answer.subjects.length === 0 ? 'a prompt with no known message' : answer.subjects.join(' ');
}
