// The attribution: what the user saw, traced back to what produced it, stated as one matching (issue 47).
//
// Per session, from the ledger and the durable state alone:
// - showings: the messages the user saw (reactions aside), in showing order;
// - answers: the LLM's answers, one per distinct prompt (at temperature 0 a retried run that asks the same prompt gets
//   the same answer, so it is one logical answer); each offers slots, one per distinct whitespace-normalised payload
//   meant for the user: a send_message/send_file payload, a `<message to="user">` block of its closing text (a block
//   that repeats a tool payload shares that payload's slot, so showing both is a duplicate and one is complete);
// - subjects: what is owed a reply: messages that mention the agent, commands (exec completions), their starts, /clear;
// - the system's canned texts: the error reply and `Session cleared.`.
//
// The matching. Every showing is matched to exactly one of:
//   (a) an open slot with its text, of an answer that had returned before it;
//   (b) when its text is a canned one, a subject that arrived before it (a command or its start: that the system had
//       taken up by then, asked about or written as a user row) and has no canned reply of its own yet: a
//       /clear for `Session cleared.`; for the error reply, a subject with a user row in state.db by then (a turn that
//       gives up writes it first) whose turn shows, as of the showing, evidence that it gave up on it; an error reply also answers, as its mates, the other subjects of the turn it ended (that
//       turn's last failed or unshown request, else the subject's own last request, answered, or, for a turn that never
//       asked, its user row in state.db closed by the error reply's row);
//   (c) nothing, only when it is a repeat its sender could not avoid (a key-less platform, at-least-once.ts).
// A canned reply given up visibly (refused for good and the give-up recorded, refusals.ts cannedGiveUps) takes part as
// a showing at the instant of its record, by rule (b), except that it may be matched to nothing: the user never saw it,
// so it answers its subject without telling the user anything (finality.ts reads no notice from it).
// Each slot is filled at most once, and each subject takes at most one canned reply of its own.
// The verdicts read the matching: a showing matched to nothing that is no such repeat was shown again (a duplicate) or
// never produced; an answer still owed (not superseded by a later answer whose prompt carried all its subjects, not
// given up by error replies to all of them) with a slot left open is a lost reply; a subject with no answer shown whole
// and no canned reply is unanswered (liveness.ts).
//
// Which matching. The showings are taken in order, each by the least of its candidates under a key. For slots the
// number filled per text does not depend on the choice: a later showing could fill every slot an earlier one could
// (slots stay open once their answer returned), so the candidate sets are nested and every greedy choice fills as many;
// the key only names whose slot it was, by the durable evidence of each: (sent, owed, in order, on the branch, latest).
// For canned replies the key is (tier, class, evidence, mate, arrival): rules E, S, T, C and R in assignCanned. Both
// keys, term by term, are in docs/MODEL.md ("The attribution's rules"), each part with the test that fails without it.
//
// Stated exceptions to the greedy order (each because a later showing bears on an earlier choice):
//   1. a possible key-less repeat takes no slot that a later showing that is no repeat would then lack
//      (leavesLaterShowingsSlots), nor a weak one (of a superseded answer, or not surely sent): it is taken for the
//      repeat it may be;
//   2. while a canned reply that is no possible repeat finds no subject (or only a /clear, tier 7, or only a subject
//      the LLM was asked about again after it, tiers 4 to 6), the latest possible repeat of its text before it that
//      took a subject, or reply of its text given up visibly (no excuse needed), yields it and the replies are assigned
//      again (the two trial loops in attribute), keeping a trial only when it leaves fewer replies lacking;
//   3. answers are marked given up only after the assignment (markGivenUp), from the error replies that ended their
//      subjects.
import type { LlmAnswerFact, LlmRequestFact, ShownFact } from '../world/ledger.ts';
import { atLeastOnceRepeats, type RepeatExcuse } from './at-least-once.ts';
import { type DbRow, familyBranch, familyEntries, familyRows } from './durable.ts';
import { readResultBlocks } from './formats.ts';
import { cannedGiveUps, givenUpAtMs } from './refusals.ts';
import { answersIn, cannedRepliesIn, carries, commandStartsOf, commandsOf, isClear, normalized, subjectsIn, type Observations, showsNoText, shownIn, type Subject, subjectAtMs, subjectKey, takenUp } from './observations.ts';

/** A tool call of an LLM answer, as the ledger records it (the API-issued id, the tool's name, the payload). */
export interface ToolCall {
  id: string;
  name: string;
  /** The payload the user sees: message text, file caption, or the reaction emoji. */
  text: string;
}

export interface Slot {
  answer: LogicalAnswer;
  /** Normalised payload text. */
  text: string;
  /** The tool calls that carry this payload (empty for a block of the closing text only). */
  toolCalls: ToolCall[];
  shownBy: ShownFact | null;
}

export interface LogicalAnswer {
  sessionKey: string;
  prompt: string;
  result: string;
  toolCalls: ToolCall[];
  first: LlmAnswerFact;
  /** Keys of the user messages, commands and command starts the prompt carries. */
  subjects: string[];
  slots: Slot[];
  superseded: boolean;
  gaveUp: boolean;
}

export interface Unexplained {
  shown: ShownFact;
  reason: 'shown-again' | 'never-produced';
  /** For shown-again: the slot it repeats. */
  repeats: Slot | undefined;
}

export interface Attribution {
  session: string;
  answers: LogicalAnswer[];
  slotOf: Map<ShownFact, Slot>;
  canned: ShownFact[];
  /** The canned reply each subject (by subjectKey) got. */
  cannedFor: Map<string, ShownFact>;
  /**
   * The first canned reply that answered each subject, as the one assigned to it or as a mate of another's (a later
   * error reply of its own may take it over in cannedFor; it was answered at the first).
   */
  cannedFirst: Map<string, ShownFact>;
  unexplained: Unexplained[];
}

export function attributeAll(o: Observations): Map<string, Attribution> {
  const excused = atLeastOnceRepeats(o);
  return new Map(o.sessions.map((session) => [session, attribute(o, session, excused)]));
}

/** A showing that fills no slot: an at-least-once repeat a key-less platform could not drop is left out, else unexplained. */
function unexplainedOrRepeat(unexplained: Unexplained[], excused: RepeatExcuse, entry: Unexplained): void {
  if (entry.reason === 'shown-again' && excused.excused(entry.shown)) return;
  unexplained.push(entry);
}

function attribute(o: Observations, session: string, excused: RepeatExcuse): Attribution {
  const answers = logicalAnswers(o, session);
  const slotOf = new Map<ShownFact, Slot>();
  const cannedShown: ShownFact[] = [];
  const unexplained: Unexplained[] = [];
  const cannedTexts = cannedRepliesIn(o).map(normalized);
  // What the transcripts say the system did with an answer: a tool call whose result is durable (a tool row of
  // state.db, or a toolResult entry of the JSONL: the two are written at different times, and a turn cut off between
  // them leaves it in one only) was made, since the result comes back from the tool server after the send; one whose
  // carrier row alone is durable may have been cut off before the send (a kill, a power loss, an interrupt); a closing
  // text whose final row is durable was dispatched. Chaos seed 902, run 37405: a turn's tool call returned (its JSONL
  // result synced) and the turn was aborted before state.db had the result row; the next turn's answer offered the
  // same stock phrase, its carrier row committed just before a power loss, and the showing of the first call went to
  // that call, never sent (its JSONL entry lost), as the first call had looked no surer than it.
  const rows = familyRows(o.durable, session);
  const durableCalls = new Set(rows.flatMap((row) => row.toolCallIds));
  const answeredCalls = new Set([
    ...rows.flatMap((row) => (row.role === 'tool' && row.toolCallId !== null ? [row.toolCallId] : [])),
    ...familyEntries(o.durable, session).flatMap((entry) => (entry.toolCallId === null ? [] : [entry.toolCallId])),
  ]);
  const branchCalls = new Set(familyBranch(o.durable, session).flatMap((entry) => (entry.role === 'assistant' ? entry.toolCallIds : [])));
  /** When each closing text first became a final row (state.db's timestamp, ms of the simulated clock). */
  const finalAtMs = new Map<string, number>();
  for (const row of rows) if (row.role === 'assistant' && row.toolCallIds.length === 0) finalAtMs.set(row.content, Math.min(row.timestamp, finalAtMs.get(row.content) ?? Infinity));
  const finalTexts: ReadonlySet<string> = new Set(finalAtMs.keys());
  // As of a showing at atMs. A run writes its final row before it dispatches the closing text, so a block of the
  // closing text alone (no tool call carries it) shows the final row as evidence only if the row was written by then:
  // chaos seed 912, run 5329 (stop 34): a turn's answer came back as a power loss struck, and the same closing text
  // was dispatched 72 s later by its retry; a resend of an earlier answer's row with that text, shown meanwhile, took
  // the retried answer's slot on the final row written after it, and its own showing was then called a duplicate.
  // A tool call was made before the run wrote its final row, so for a tool call's slot the row counts whenever written.
  const evidence = (slot: Slot, atMs: number): number => {
    const finalAt = finalAtMs.get(slot.answer.result);
    const closing = finalAt !== undefined && (slot.toolCalls.length > 0 || finalAt <= atMs) ? 0 : 2;
    if (slot.toolCalls.some((call) => answeredCalls.has(call.id))) return 0;
    return Math.min(closing, slot.toolCalls.some((call) => durableCalls.has(call.id)) ? 1 : 2);
  };
  // A showing the sender may have made again without knowing the first had landed (an at-least-once repeat on a
  // key-less platform) is optional (asked without claiming the send it retries: a showing that fills a slot or answers
  // a message claims nothing, and one taken for a repeat claims its send then). It does not take a slot that a later
  // showing of the same text, one that is no such repeat, would then lack: slots stay open once their answer returned,
  // so the later ones can all be filled exactly when, for each k, the k-th of them finds at least k slots left that
  // returned before it. Otherwise a resend could take the slot of a newer answer that offers the same stock phrase and
  // leave that answer's own showing with none (campaign seed 11, run 1002: a resend of m3's "on it" row filled m4's
  // slot, and m4's showing was called a duplicate).
  const slotTexts = new Set(answers.flatMap((answer) => answer.slots.map((slot) => slot.text)));
  const showings = shownIn(o, session).filter((fact) => !excused.replayed(fact));
  // A canned reply given up visibly needs no subject either (it told the user nothing).
  const optional = (fact: ShownFact): boolean => givenUpReplies.has(fact) || ((slotTexts.has(normalized(fact.text)) || cannedTexts.includes(normalized(fact.text))) && excused.mayRepeat(fact));
  // The slots counted for the later showings are the ones state.db shows some sign of (a carrier, a result or a final
  // row): a later showing that could take only a slot with none (say of an answer given up, whose carrier a power loss
  // took) would be called a row-less showing, so the possible repeat is the one taken for a repeat (send-heavy chaos seed 1, run
  // 7,899: a gateway's resend of an older result row after a power loss took a task occurrence's call of the same text,
  // and that call's own showing went to an earlier occurrence's given-up call with no carrier row).
  const leavesLaterShowingsSlots = (fact: ShownFact, taken: Slot): boolean => {
    const text = normalized(fact.text);
    const left = answers.flatMap((answer) => answer.slots).filter((slot) => slot !== taken && slot.shownBy === null && slot.text === text);
    const later = showings.filter((other) => other.index > fact.index && !optional(other) && normalized(other.text) === text);
    return later.every((other, k) => left.filter((slot) => slot.answer.first.returnedAtMs <= other.atMs && evidence(slot, other.atMs) < 2).length > k);
  };
  for (const fact of showings) {
    const text = normalized(fact.text);
    // A network replay carries what its send held when it left: only an answer returned by then can be its content
    // (send-heavy chaos seed 13, run 691: the replay of a refused send of m12's tool message filled m13's slot of the
    // same text, whose answer came back after that send, and m13's own showing went to an old closing text).
    const madeByMs = excused.replaySentAtMs(fact) ?? fact.atMs;
    const open = answers
      .filter((answer) => answer.first.returnedAtMs <= madeByMs)
      .flatMap((answer) => answer.slots.filter((slot) => slot.shownBy === null && slot.text === text));
    // Among slots the showing could fill: the one state.db shows most surely sent (a tool call with its result row, or
    // a closing text with its final row; then a tool call with its carrier row alone), then an answer still standing
    // before a superseded one, then the latest answer (a stock phrase shown after a newer answer returned is credited
    // to it, not to an older answer the system may have given up on since). A superseded answer's tool call whose
    // carrier row is durable was made before the run was cut off, and beats a slot state.db shows no sign of.
    // Between slots equal on that, one whose answer's earlier tool messages were all shown by then ranks first: a run
    // makes its tool calls one after another, each send done before the next call, and a session's rows are delivered
    // in order (campaign seed 2 with issue 24's chaos patch: a Hermes run failed after its second tool message, the next
    // message's run began at once, and that message went to the newer answer's third call, none of whose first two
    // had been shown, which left the older answer's own message unshown).
    const inOrder = (candidate: Slot): boolean => {
      const calls = candidate.answer.slots.filter((other) => other.toolCalls.length > 0);
      const index = calls.indexOf(candidate);
      return index <= 0 || calls.slice(0, index).every((other) => other.shownBy !== null && other.shownBy.atMs <= fact.atMs);
    };
    // Between slots equal on all that, a tool call whose carrier is not on the JSONL active branch ranks last (a block
    // of the closing text alone is not ranked by it): a tool call on the branch is held in both stores, as
    // one-assistant-row-per-visible-reply asks of a tool message shown.
    // fuzz --all seed 815, chaos run 618 (stop 36): on a key-less platform m0's first answer sent "Looking it up" (its
    // carrier in both stores) and a power loss struck; the re-formed turn's answer called the same phrase, its carrier
    // row committed and its JSONL append torn by a second power loss, and its call was never made. The one showing (the
    // gateway's send of the first call's row) went to the newer call, which no JSONL entry carries.
    const rank = (candidate: Slot): number =>
      2 * (2 * (2 * evidence(candidate, fact.atMs) + (candidate.answer.superseded ? 1 : 0)) + (inOrder(candidate) ? 0 : 1)) +
      (candidate.toolCalls.length > 0 && !candidate.toolCalls.some((call) => branchCalls.has(call.id)) ? 1 : 0);
    const slot = open.reduce<Slot | undefined>((best, candidate) => (best === undefined || rank(candidate) <= rank(best) ? candidate : best), undefined);
    // A showing that only a superseded answer, or a slot state.db does not show as surely sent (a tool call with no
    // result row: never made, or cut off before the send; a closing text with no final row), could explain is rather
    // a repeat the sender could not avoid, when it is one (a key-less platform). Campaign seed 11: a power loss killed
    // the gateway before the acknowledgement of a stock phrase came back, and took the unsynced JSONL entry of a newer
    // answer's call of the same phrase, cut off before its send (its carrier row alone durable); the next gateway's
    // resend of the first row was credited to that call.
    const weak = (candidate: Slot): boolean => candidate.answer.superseded || evidence(candidate, fact.atMs) > 0;
    if (slot !== undefined && (weak(slot) || !leavesLaterShowingsSlots(fact, slot)) && excused.excused(fact)) continue;
    if (slot !== undefined) {
      slot.shownBy = fact;
      slotOf.set(fact, slot);
    } else if (cannedTexts.includes(text)) {
      cannedShown.push(fact);
    } else {
      const repeats = answers.flatMap((answer) => answer.slots).find((candidate) => candidate.text === text);
      unexplainedOrRepeat(unexplained, excused, { shown: fact, reason: repeats !== undefined ? 'shown-again' : 'never-produced', repeats });
    }
  }
  // The canned replies given up visibly, each in its place among the showings (at the instant of its record).
  for (const giveUp of cannedGiveUps(o, session)) {
    const before = o.ledger.shown.filter((fact) => fact.atMs <= giveUp.atMs).length;
    const fact: ShownFact = { index: before - 0.5, sessionKey: session, text: giveUp.text, kind: 'chat', atMs: giveUp.atMs };
    givenUpReplies.add(fact);
    cannedShown.push(fact);
  }
  cannedShown.sort((a, b) => a.index - b.index);
  // Canned replies likewise: while a canned reply that is no possible resend finds no message to answer, the latest
  // possible resend of its text before it that took one is taken for the repeat it may be, and the replies are
  // assigned again (campaign seed 18, run 1621: a gateway's resend of m0's error reply after a power loss took m1, m1's
  // own error reply took m2, and m2's was left over).
  const takenForRepeat = (fact: ShownFact): boolean => optional(fact) && excused.excused(fact);
  // The excuse as the showings left it: a trial below starts again from here, asking in showing order.
  const base = excused.checkpoint();
  let canned = cannedShown;
  let cannedUnexplained: Unexplained[] = [];
  let assigned = assignCanned(o, session, answers, canned, cannedUnexplained, takenForRepeat, finalTexts, rows);
  const yielded = new Set<ShownFact>();
  for (;;) {
    const lacking = cannedUnexplained.find((entry) => !optional(entry.shown));
    if (lacking === undefined) break;
    const took = new Set(assigned.cannedFirst.values());
    const yielding = canned.filter((fact) => fact.index < lacking.shown.index && normalized(fact.text) === normalized(lacking.shown.text) && optional(fact) && took.has(fact)).at(-1);
    // A reply given up visibly yields without an excuse: the user never saw it, so it may answer no one.
    if (yielding === undefined || (!givenUpReplies.has(yielding) && !excused.excused(yielding))) break;
    yielded.add(yielding);
    canned = canned.filter((fact) => fact !== yielding);
    cannedUnexplained = [];
    assigned = assignCanned(o, session, answers, canned, cannedUnexplained, takenForRepeat, finalTexts, rows);
  }
  // A reply that is no possible resend and is still left over, that only a /clear could take (the last resort, tier 7),
  // or that went to a subject the LLM was asked about again after it (tiers 4 to 6: as far as its showing tells, that
  // turn had not given up) is lacking too: the latest possible resend of its text before it that took a subject is
  // taken for the repeat it may be, and the replies are assigned again from the start, the excuse asked in showing
  // order; the trial is kept when it lacks fewer, and dropped with its claims when it does not or the resend is no
  // repeat after all.
  // Chaos seed 969, run 13189: after a power loss the new gateway resent m2's error reply, which took m1; m1's own
  // reply then found only the /clear m3, and m3's `Session cleared.` was left over. fuzz --all seed 820, compaction
  // run 43: two resends after lost acknowledgements took m8 and m9, never asked during an LLM outage, and m8's and
  // m9's own replies found only the /clear (one resend yielding is enough: the other reply is then taken for a repeat).
  // Send-heavy chaos seed 3, run 15,953: a batch of six messages gave up; after a power loss the new gateway resent the
  // first error reply and the link replayed it, the resend took m1 on the first tier, each later reply went one message
  // too early, and the last went to m8, whose own turn was still asking.
  // A trial must answer as many subjects as before, not counting those answered by a reply asked about again (a /clear
  // left with no reply at all would be a loss), and lack fewer: fewer replies left over (each a duplicate), else as
  // many and fewer last resorts, else fewer replies to subjects asked about again.
  const lacks = (assignment: CannedAssignment, left: readonly Unexplained[]): number[] => [
    -[...assignment.cannedFor.values()].filter((fact) => !assignment.askedAgain.includes(fact)).length,
    left.filter((entry) => !optional(entry.shown)).length,
    assignment.lastResort.filter((fact) => !optional(fact)).length,
    assignment.askedAgain.filter((fact) => !optional(fact)).length,
  ];
  const fewerLacking = (trial: number[], now: number[]): boolean => (trial[0] ?? 0) <= (now[0] ?? 0) && lessThan(trial.slice(1), now.slice(1));
  for (let improved = true; improved; ) {
    improved = false;
    const lacking = [...cannedUnexplained.map((entry) => entry.shown), ...assigned.lastResort, ...assigned.askedAgain].filter((fact) => !optional(fact)).sort((a, b) => a.index - b.index);
    for (const fact of lacking) {
      // A reply took a subject as its first or as its own (a mate's own reply takes it over).
      const took = new Set([...assigned.cannedFirst.values(), ...assigned.cannedFor.values()]);
      const yielding = canned.filter((other) => other.index < fact.index && normalized(other.text) === normalized(fact.text) && optional(other) && took.has(other)).at(-1);
      if (yielding === undefined) continue;
      const mark = excused.checkpoint();
      base();
      const trialYields = new Set([...yielded, yielding]);
      const left: Unexplained[] = [];
      const trial = assignCanned(o, session, answers, cannedShown, left, takenForRepeat, finalTexts, rows, trialYields);
      if (!trial.yieldFailed && fewerLacking(lacks(trial, left), lacks(assigned, cannedUnexplained))) {
        yielded.add(yielding);
        canned = cannedShown.filter((other) => !yielded.has(other));
        cannedUnexplained = left;
        assigned = trial;
        improved = true;
        break;
      }
      mark();
    }
  }
  const { cannedFor, cannedFirst, endedBy } = assigned;
  for (const entry of cannedUnexplained) if (!givenUpReplies.has(entry.shown)) unexplainedOrRepeat(unexplained, excused, entry);
  markGivenUp(o, answers, endedBy);
  return { session, answers, slotOf, canned: [...cannedFor.values()], cannedFor, cannedFirst, unexplained };
}

/**
 * The canned replies given up visibly that the attribution matched as showings (no showing of the ledger: the user
 * never saw them). finality.ts reads no failure notice from one.
 */
const givenUpReplies = new WeakSet<ShownFact>();

/** Whether a canned reply of an attribution is one given up visibly, never shown (see givenUpReplies). */
export function isGivenUpReply(fact: ShownFact): boolean {
  return givenUpReplies.has(fact);
}

/** What assignCanned decided: each subject's canned reply, the first one each had, what each reply ended. */
interface CannedAssignment {
  cannedFor: Map<string, ShownFact>;
  cannedFirst: Map<string, ShownFact>;
  endedBy: Map<string, ShownFact[]>;
  /** The error replies a /clear took as the last resort (tier 7: no other subject could take them). */
  lastResort: ShownFact[];
  /** The error replies taken by a subject the LLM was asked about again after the showing (tiers 4 to 6). */
  askedAgain: ShownFact[];
  /** Whether a reply taken for a repeat (`yields`) was no repeat the excuse allowed. */
  yieldFailed: boolean;
}

/** Lexicographic order of two keys of equal length. */
function lessThan(a: readonly number[], b: readonly number[]): boolean {
  for (const [i, value] of a.entries()) if (value !== b[i]) return value < (b[i] ?? Infinity);
  return false;
}

/**
 * Each canned reply answers one subject: `Session cleared.` a /clear, the error reply a message, command, command's
 * start or /clear (one whose turn gave up), among those that arrived before it and have no canned reply of their own
 * yet. The reply goes to the candidate with the least key (tier, class, evidence, mate, arrival): the rules E, S, T, C and R in the loop below,
 * stated in docs/MODEL.md ("The attribution's rules"). An error reply also answers, as their mate, the other open
 * subjects its turn's request carried (a turn may end with one error reply or one per message). A canned reply that
 * finds no subject is shown again.
 */
function assignCanned(
  o: Observations,
  session: string,
  answers: readonly LogicalAnswer[],
  shown: readonly ShownFact[],
  unexplained: Unexplained[],
  takenForRepeat: (fact: ShownFact) => boolean,
  /** The closing texts state.db holds as final rows of the session's family (its turns that finished). */
  finalTexts: ReadonlySet<string>,
  /** The rows of the session's family in state.db, in its order (timestamp, then insertion). */
  rows: readonly DbRow[],
  /** Replies taken for the repeats they may be: each is asked of the excuse in its turn, and answers no subject. */
  yields: ReadonlySet<ShownFact> = new Set(),
): CannedAssignment {
  // A context message (it did not mention the agent) is owed no reply, so no canned reply answers it.
  // Messages the gateway acknowledged come first: one it never acknowledged was most likely never taken in (the
  // platform gave up redelivering it), so a canned reply goes to it only when no acknowledged message can take it
  // (campaign seed 45: an unacknowledged /clear, lost in a power loss, took the `Session cleared.` of a later one).
  const messages = o.ledger.userMessages.filter((message) => message.sessionKey === session && message.mentions);
  const subjects: Subject[] = [
    ...messages.filter((message) => message.acknowledgedAtMs !== null),
    ...[...commandsOf(o, session), ...commandStartsOf(o, session)].filter((command) => takenUp(o, session, command)),
    ...messages.filter((message) => message.acknowledgedAtMs === null),
  ];
  const unacknowledged = new Set<Subject>(messages.filter((message) => message.acknowledgedAtMs === null));
  // A command or a command's start is a subject once the system took it up (observations.ts takenUp): a canned reply
  // is its own only if it was taken up by the showing, by a request carrying it or its user row in state.db, since its
  // turn writes that row before any reply. Chaos seed 2, run 3784: run-5's events waited in the gateway's memory while
  // m2's turn gave up; m2's error reply went to run-5, never asked, whose row was written 26 s after that showing.
  const takenUpBy = (subject: Subject, atMs: number): boolean =>
    'marker' in subject ||
    o.ledger.requests.some((request) => request.sessionKey === session && request.atMs <= atMs && carries(request.prompt, subject)) ||
    rows.some((row) => row.role === 'user' && row.timestamp <= atMs && carries(row.content, subject));
  // A message the LLM was asked about had been taken in, whatever became of its acknowledgement (lost on its way, or
  // come after the platform gave up redelivering: chaos seed 601, run 19689, where m6's turn gave up and its error
  // reply went to a message never asked).
  const neverTakenIn = (candidate: Subject, atMs: number): boolean => unacknowledged.has(candidate) && !requests.some((request) => request.atMs <= atMs && carries(request.prompt, candidate));
  // A command's start is owed no reply (its heartbeat's answer asks for HEARTBEAT_OK): once another answer that
  // came back after the start's last request ended was shown whole, an error reply of the start's turn would have gone
  // out before it, so a later canned reply is the start's only if nothing else can take it (stale).
  const staleStart = (candidate: Subject, atMs: number): boolean => {
    if (!('start' in candidate)) return false;
    const endedAtMs = requests.filter((request) => request.atMs <= atMs && carries(request.prompt, candidate)).at(-1)?.endedAtMs;
    if (endedAtMs === undefined || endedAtMs === null) return false;
    const key = subjectKey(candidate);
    return answers.some(
      (answer) =>
        !answer.subjects.includes(key) &&
        answer.first.returnedAtMs > endedAtMs &&
        answer.slots.length > 0 &&
        answer.slots.every((slot) => slot.shownBy !== null && slot.shownBy.atMs <= atMs),
    );
  };
  // A message is answered at an instant when some answer carrying it had been shown whole by then; a partly shown
  // answer (its tool message went out, then the run was given up) still leaves the message open for the error reply,
  // and so does an answer with nothing to show (a heartbeat's HEARTBEAT_OK for a command's start): the user saw
  // nothing of it. An answer shown only after a canned reply does not answer the message before it (time order).
  // A slot given up visibly (its reply refused for good and the give-up recorded, refusals.ts) counts as shown at the
  // record: the system concluded the reply visibly, and no error reply was owed for it (fixed-model chaos, seed 13 run
  // 1197: m5's answer, given up in a chat not found, took m6's error reply shown later).
  // The earlier of the two: a give-up recorded before a later showing of the same text was credited to the slot (another
  // answer's message of that text, shown after the chat was found again) settled it at the record (send-heavy chaos
  // seed 12, run 25: m4's file, given up in a chat not found, was credited another answer's file shown two minutes
  // later, so m4 stayed open and took m6's error reply, and m6's answer was called lost), as concludedAtMs reads it.
  const settledAtMs = (slot: Slot): number => Math.min(slot.shownBy?.atMs ?? Infinity, givenUpAtMs(o, session, slot.text) ?? Infinity);
  const coveredAtMs = new Map<string, number>();
  for (const answer of answers) {
    if (answer.slots.length === 0 || answer.slots.some((slot) => settledAtMs(slot) === Infinity)) continue;
    const wholeAtMs = Math.max(...answer.slots.map(settledAtMs));
    for (const subject of answer.subjects) coveredAtMs.set(subject, Math.min(coveredAtMs.get(subject) ?? Infinity, wholeAtMs));
  }
  const coveredBy = (subject: Subject, atMs: number): boolean => (coveredAtMs.get(subjectKey(subject)) ?? Infinity) <= atMs;
  const requests = o.ledger.requests.filter((request) => request.sessionKey === session);
  // A request had failed by an instant when the API had returned its error by then, or when no answer ever came back
  // (it hung, or its caller died waiting). A request still in flight then, which fails only later, had not: the turn
  // asking it was still running (campaign seed 57, run 1381).
  const failedBy = (request: LlmRequestFact | undefined, atMs: number): boolean =>
    request !== undefined && (request.outcome === 'pending' || (request.outcome === 'error' && (request.endedAtMs ?? Infinity) <= atMs));
  const lastCarrying = (subject: Subject, atMs: number): LlmRequestFact | undefined => requests.filter((request) => request.atMs <= atMs && carries(request.prompt, subject)).at(-1);
  // The error reply goes first to a subject whose last request before it had failed: that is the turn it ended.
  const lastFailedBefore = (subject: Subject, atMs: number): boolean => failedBy(lastCarrying(subject, atMs), atMs);
  // The system gave up on a subject it never asked about in the whole run, or whose last request had failed by then (one
  // first asked later was still waiting for its turn).
  // A failed last request is no sign when an attempt overlapping it answered and went on after the instant (state.db
  // got a row of its answer later: wentOnAfter): overlapping attempts, the cron executor's retry started while its
  // first attempt still ran, whose answer came back as the retry failed and was used by the turn (send-heavy chaos
  // seed 11, run 1046: a task occurrence took the error reply of a command's turn, and every later error reply of the
  // session went one message too early).
  // Only an attempt that overlapped the failed one (still in flight when that was asked) counts: a retry after an answer
  // came back is its turn asking again, and a turn that then gave up still writes rows of the answer beside its error
  // reply (Hermes persists a failed run's messages).
  const answeredAndWentOn = (subject: Subject, atMs: number): boolean => {
    const failed = lastCarrying(subject, atMs);
    return requests.some(
      (request) =>
        request !== failed &&
        request.atMs <= (failed?.atMs ?? -Infinity) &&
        request.outcome === 'answer' &&
        (request.endedAtMs ?? Infinity) >= (failed?.atMs ?? Infinity) &&
        (request.endedAtMs ?? Infinity) <= atMs &&
        carries(request.prompt, subject) &&
        (wentOnAfter(request, atMs) || finishedWith(request)),
    );
  };
  const gaveUpOn = (subject: Subject, atMs: number): boolean =>
    !requests.some((request) => carries(request.prompt, subject)) || (lastFailedBefore(subject, atMs) && !answeredAndWentOn(subject, atMs));
  // A subject whose turn never finished: the last request carrying it was answered by then, and that answer's closing
  // text never became a final row of state.db. A run writes its final row before it dispatches the closing text, so a
  // turn that went on wrote it; one that gave up after its tool messages went out did not (chaos seed 603, run 14607:
  // m4's tool messages, which its closing text repeated, were shown whole, a write failed, the retry gave up without
  // asking again, and m7's turn had already asked when the error reply was shown).
  const unfinished = (subject: Subject, atMs: number): boolean => {
    const last = lastCarrying(subject, atMs);
    if (last === undefined || last.outcome !== 'answer' || last.answer === null || (last.endedAtMs ?? Infinity) > atMs) return false;
    const answer = o.ledger.answers[last.answer];
    return answer !== undefined && !finalTexts.has(answer.result);
  };
  // Any sign that a subject's turn ended without answering it by an instant: it gave up on it, or the last request
  // carrying it was answered by then and that answer was not shown whole by then. A subject whose last request was
  // still in flight shows none: its turn was still running, so an error reply then is not its own.
  // An answer whose turn went on after an instant: state.db got a row of it later (its final row, or a tool row of one of
  // its calls): that turn was still running then, so an error reply then was not its (chaos seed 26, run 834: a
  // heartbeat turn's answer came back at 9 min 18 s and its tool calls ran until 9 min 50 s; an error reply of another
  // turn shown at 9 min 23 s went to its command, and the command's action was judged to follow its failure notice).
  const wentOnAfter = (request: LlmRequestFact, atMs: number): boolean => {
    const answer = request.answer === null ? undefined : o.ledger.answers[request.answer];
    if (answer === undefined) return false;
    const calls = new Set(answer.toolCalls.map((call) => call.id));
    return rows.some(
      (row) =>
        row.timestamp > atMs &&
        ((row.role === 'assistant' && row.toolCallIds.length === 0 && row.content === answer.result) || (row.role === 'tool' && row.toolCallId !== null && calls.has(row.toolCallId))),
    );
  };
  // An answer its turn finished with: state.db holds its closing text as a final row (a turn that gives up writes the
  // error reply as its final row, and only its tool rows beside it). For the overlapping attempts above: the cron
  // executor's first attempt answered as its retry failed, and the turn wrote the answer's final row a moment before
  // another turn's error reply was shown (send-heavy chaos seed 2, run 17,215: the task occurrence took m0's error
  // reply, and each later one went one message too early, until m20's answer was called lost).
  const finishedWith = (request: LlmRequestFact): boolean => {
    const answer = request.answer === null ? undefined : o.ledger.answers[request.answer];
    return answer !== undefined && finalTexts.has(answer.result);
  };
  const signOfFailure = (subject: Subject, atMs: number): boolean => {
    if (gaveUpOn(subject, atMs)) return true;
    const last = lastCarrying(subject, atMs);
    return last !== undefined && last.outcome === 'answer' && (last.endedAtMs ?? Infinity) <= atMs && !coveredBy(subject, atMs) && !wentOnAfter(last, atMs);
  };
  // A turn may give up after its answer was shown (a write failed after the send, then every retry failed too): the
  // error reply then follows the session's last request, which carried the subject. The turn tells each message that
  // woke it, so one request may be followed by as many error replies as the messages it carried (each answers one).
  // A request still in flight at the showing (asked before it, answered or failed after it, or never returned: a hang)
  // is a later turn's, asked while the reply was on its way (Hermes' processing mode: the runner starts the next
  // message's run as soon as the failed one wrote its error reply, issue 24 item 7; chaos seed 1 with its patch: that
  // run hung on a poison message, and the error reply of the run before went to the poison).
  const askedBy = (request: LlmRequestFact, atMs: number): boolean => request.atMs <= atMs && (request.endedAtMs ?? Infinity) <= atMs;
  const lastAskedBefore = (atMs: number, subject: Subject): boolean => {
    const last = requests.filter((request) => askedBy(request, atMs)).at(-1);
    return last !== undefined && carries(last.prompt, subject);
  };
  // A turn writes its user row and, when it gives up, the row of its error reply in the session it was in (the model's;
  // Hermes' gateway writes none for a /clear): the first assistant row after the subject's user row, in state.db's
  // order and the same session, is the error reply and was written by the instant. That user row is the turn's: the
  // reply ended every subject it carries (chaos seed 931 with the model fixed; seed 946: a /clear queued behind
  // another, whose row is `Session cleared.`, took a failed message's error reply on a weaker rule).
  const errorText = normalized(cannedRepliesIn(o)[0]);
  const rowClosedByError = (candidate: Subject, atMs: number): DbRow | undefined => {
    const at = rows.findIndex((row) => row.role === 'user' && carries(row.content, candidate));
    const user = rows[at];
    const closing = user === undefined ? undefined : rows.slice(at + 1).find((row) => row.role === 'assistant' && row.sessionId === user.sessionId);
    if (closing === undefined || closing.timestamp > atMs) return undefined;
    const blocks = readResultBlocks(closing.content);
    return blocks.length === 1 && normalized(blocks[0]?.body ?? '') === errorText ? user : undefined;
  };
  // A turn that gives up writes its error reply's row in state.db after its user row, before the reply can be seen:
  // a subject with no user row there by the showing had no turn that could have ended with it. The gateway's
  // heartbeat run and cron executor ask the LLM outside the chat's lane, before any turn of theirs wrote a row, so the
  // session's last request may be theirs when another turn's error reply is shown (chaos with send-heavy runs, seed
  // 14 run 350 and seed 13 run 807: the reply went to the subject they asked about, whose action came later).
  // (Observations of a system that keeps no state.db for the session, as some checker tests build, have no such rows.)
  const keepsStateDb = (o.durable.families.get(session)?.length ?? 0) > 0;
  const userRowBy = (candidate: Subject, atMs: number): boolean => !keepsStateDb || rows.some((row) => row.role === 'user' && row.timestamp <= atMs && carries(row.content, candidate));
  // Each canned reply answers one subject of its own (primary). An error reply ends a turn, so it also answers the
  // other subjects the turn's last failed request carried (a turn may carry several, merged or batched), as their
  // mate; a later error reply of their own still takes such a subject over.
  const primary = new Map<string, ShownFact>();
  const lastResort: ShownFact[] = [];
  const askedAgain: ShownFact[] = [];
  const mates = new Map<string, ShownFact>();
  const cannedFirst = new Map<string, ShownFact>();
  // Every canned reply that ended a turn carrying a subject: its own, and each error reply whose turn's last failed
  // request carried it (even when an earlier turn's error reply is the one assigned to it: a command's start may be
  // carried again by the later turn of its finish). An answer is given up by any of them after it (markGivenUp).
  const endedBy = new Map<string, ShownFact[]>();
  const ended = (key: string, fact: ShownFact): void => {
    const facts = endedBy.get(key) ?? [];
    if (!facts.includes(fact)) facts.push(fact);
    endedBy.set(key, facts);
  };
  let yieldFailed = false;
  for (const fact of shown) {
    if (yields.has(fact)) {
      if (!givenUpReplies.has(fact) && !takenForRepeat(fact)) yieldFailed = true;
      continue;
    }
    const clear = normalized(fact.text) === normalized(cannedRepliesIn(o)[1]);
    // A `Session cleared.` answers a /clear; an error reply any subject, a /clear too (its reset failed: chaos seed 931).
    const candidates = subjects.filter((subject) => (!clear || isClear(subject)) && subjectAtMs(subject) <= fact.atMs && takenUpBy(subject, fact.atMs) && !primary.has(subjectKey(subject)) && (clear || isClear(subject) || userRowBy(subject, fact.atMs)));
    // The session's last request before the showing, and its answer: the turn a reply of the session most likely
    // ended (a request still in flight then is a later turn's, asked while the reply was on its way).
    const lastRequest = requests.filter((request) => askedBy(request, fact.atMs)).at(-1);
    const lastAnswer = lastRequest?.answer === null || lastRequest?.answer === undefined ? undefined : o.ledger.answers[lastRequest.answer];
    const lastLogical = lastAnswer === undefined ? undefined : answers.find((answer) => answer.prompt === lastAnswer.prompt);
    // That answer was shown in part before the reply, or had something for the user of which nothing was shown by then;
    // either way not shown whole in the end with a part after the reply (its turn went on to write its closing text,
    // the last thing a turn writes, so the reply was not its turn's).
    const shownWholeInTheEnd = lastLogical !== undefined && lastLogical.slots.every((slot) => slot.shownBy !== null);
    const shownBefore = lastLogical !== undefined && lastLogical.slots.some((slot) => slot.shownBy !== null && slot.shownBy.atMs <= fact.atMs);
    const partlyShown = shownBefore && !(shownWholeInTheEnd && lastLogical.slots.some((slot) => slot.shownBy !== null && slot.shownBy.atMs > fact.atMs));
    const nothingShown = lastLogical !== undefined && lastLogical.slots.length > 0 && !shownBefore && !shownWholeInTheEnd;
    // The session's last request carried the subject and is the last one asked about it by then: one asked since and
    // still in flight at the showing means its turn asked again rather than gave up (chaos seed 604, run 6047: an
    // interrupted attempt's answer for m16 came back with nothing shown, the re-formed turn asked again, and a key-less
    // resend of an older error reply shown meanwhile was credited to m16).
    const answeredLast = (candidate: Subject): boolean =>
      lastRequest !== undefined &&
      lastAnswer !== undefined &&
      lastAnswer.returnedAtMs <= fact.atMs &&
      carries(lastRequest.prompt, candidate) &&
      lastCarrying(candidate, fact.atMs) === lastRequest;
    // The session moved on past a subject: the last request carrying it was answered by then, that answer was not
    // shown whole (not even in the end), and a later request that does not carry it was asked before the showing. A
    // session runs one turn at a time, so that turn was over without showing its answer.
    const movedOn = (candidate: Subject): boolean => {
      const last = lastCarrying(candidate, fact.atMs);
      if (last === undefined || last.outcome !== 'answer' || (last.endedAtMs ?? Infinity) > fact.atMs) return false;
      const answer = last.answer === null ? undefined : o.ledger.answers[last.answer];
      const logical = answer === undefined ? undefined : answers.find((candidateAnswer) => candidateAnswer.prompt === answer.prompt);
      if (logical === undefined) return false;
      // An answer shown whole in the end (part of it after the reply) was dispatched by its turn, which went on while
      // the next turn asked: no sign that it gave up (fuzz --all seed 501, scheduled-tasks run 262: m1's answer came
      // back, m2's turn asked, the error reply of a task occurrence's turn was shown, then m1's answer). So is, trivially,
      // an answer with nothing for the user (a heartbeat's HEARTBEAT_OK ends its turn complete).
      if (logical.slots.every((slot) => slot.shownBy !== null)) return false;
      return requests.some((request) => request.atMs > last.atMs && request.atMs <= fact.atMs && !carries(request.prompt, candidate));
    };
    // Rule E: the evidence, as of the showing, that the turn of a subject no answer covered by then gave up on it,
    // strongest first (undefined: none, its turn was still running).
    const evidence = (candidate: Subject): number | undefined => {
      // A /clear asks the LLM nothing: for an error reply, its evidence is state.db's row that closed its turn (1 when
      // it is the error reply, written by then); none of it (7) leaves it the reply no other subject can take.
      if (!clear && isClear(candidate)) return rowClosedByError(candidate, fact.atMs) !== undefined ? 1 : 7;
      if (partlyShown && answeredLast(candidate)) return 0;
      if (gaveUpOn(candidate, fact.atMs)) return 1;
      if (movedOn(candidate)) return 2;
      if (nothingShown && answeredLast(candidate)) return 3;
      if (signOfFailure(candidate, fact.atMs)) return 4;
      return undefined;
    };
    // A subject answered whole by then takes an error reply only when its last request had failed by then (the turn
    // gave up after a write failed past the send), its turn never finished (3), or the session's last request carried it.
    const evidenceCovered = (candidate: Subject): number | undefined =>
      lastFailedBefore(candidate, fact.atMs) ? 1 : unfinished(candidate, fact.atMs) ? 3 : !clear && lastAskedBefore(fact.atMs, candidate) ? 5 : undefined;
    // Rule T, the tier: a subject never asked about after the showing (settled) first, since crediting the reply to one
    // the LLM is asked about again says the system acted on a request it had called failed (failure-notice-final):
    // that is concluded only when no settled subject shows a sign that its turn gave up (chaos seed 401 run 8314: the
    // fourth error reply of a turn that told each of its messages, one answered whole long before, went to a command
    // whose turn was retrying). Then a subject no answer covered before one covered (it owes no reply), and strong
    // evidence (0-3) before a mere sign (4); a covered subject's failed last request (1), then its turn never finished
    // (3), before the session's last request carrying it (5).
    const tier = (covered: boolean, settled: boolean, strength: number): number => {
      if (settled) return covered ? (strength === 1 ? 2 : 3) : strength <= 3 ? 0 : 1;
      return covered ? 6 : strength === 1 ? 4 : 5;
    };
    // Rule C: the subject's class: messages taken in (acknowledged, or asked about by then), commands and starts first;
    // a stale start; a message neither; last a command or start already answered as a mate (a heartbeat turn answers
    // its row once).
    const subjectClass = (candidate: Subject): number =>
      mates.has(subjectKey(candidate)) && !('marker' in candidate) ? 3 : staleStart(candidate, fact.atMs) ? 1 : neverTakenIn(candidate, fact.atMs) ? 2 : 0;
    let best: { subject: Subject; key: number[]; covered: boolean } | undefined;
    for (const [index, candidate] of candidates.entries()) {
      const covered = coveredBy(candidate, fact.atMs);
      const strength = covered ? evidenceCovered(candidate) : evidence(candidate);
      if (strength === undefined) continue;
      const settled = !requests.some((request) => request.atMs > fact.atMs && carries(request.prompt, candidate));
      // The key: tier, class, evidence, not yet answered as a mate before a mate, then arrival.
      // A /clear with no such row takes an error reply last (tier 7), when no other subject can and the reply is no
      // repeat (rule R): the reply then says it failed, and failure-notice-final judges whether its reset was made.
      const key = [strength === 7 ? 7 : tier(covered, settled, strength), subjectClass(candidate), strength, mates.has(subjectKey(candidate)) ? 1 : 0, index];
      if (best === undefined || lessThan(key, best.key)) best = { subject: candidate, key, covered };
    }
    // Rule R: an error reply that may be a key-less resend answers a subject still open only on the strongest tier's
    // evidence; otherwise it is taken for the repeat it may be. One whose best subject was answered whole and is
    // settled is that subject's (a turn that gave up after its answer went out): asking whether it is a repeat would
    // claim the excuse an earlier resend needs (fuzz --all seed 502, chaos run 1530: m5's error reply, after its whole
    // answer, took the excuse of m0's reply, resent twice after two power losses). One whose best subject was answered
    // whole and is asked about again (tier 6) is rather the repeat, when it can be one (chaos seed 612, run 8322: a
    // resend of m6's error reply went to a command whose answer was shown whole and whose turn, cut by a power loss,
    // asked again after it).
    const tierOf = best?.key[0] ?? 0;
    if (best !== undefined && tierOf > 0 && (!best.covered || tierOf === 6) && !clear && takenForRepeat(fact)) continue;
    const subject = best?.subject;
    if (subject === undefined) {
      // A reply no subject can take is the repeat it may be, asked now, in showing order: asked only at the end, a
      // later reply taken for a repeat could claim the send it retries first (chaos seed 608, run 9572: a lost
      // acknowledgement's resend of a start's error reply, 6 s later, lost its excuse to a later error reply).
      if (!takenForRepeat(fact)) unexplained.push({ shown: fact, reason: 'shown-again', repeats: undefined });
      continue;
    }
    primary.set(subjectKey(subject), fact);
    if (tierOf === 7) lastResort.push(fact);
    else if (tierOf >= 4) askedAgain.push(fact);
    if (!cannedFirst.has(subjectKey(subject))) cannedFirst.set(subjectKey(subject), fact);
    mates.delete(subjectKey(subject));
    ended(subjectKey(subject), fact);
    if (clear) continue;
    // The turn this reply ended: the one whose last request was answered and partly shown before it gave up (its other
    // messages are this reply's mates too: campaign seed 17, run 385, a command's start and finish in one row whose
    // turn gave up on a busy state.db after its tool messages went out), else the one whose last request carrying the
    // subject failed.
    // A turn that never asked the LLM (every attempt failed before the request, then it gave up) is known by its user
    // row alone, closed by this reply (chaos seed 1, run 272: one row carried an exec start and its finish, the turn
    // gave up unasked, and the start, left open, later took the error reply of a message).
    // Else, for a subject no answer covered by then, its own last request, answered (the turn it gave up on: a request
    // asked since by work outside the chat's lane, the gateway's cron executor or heartbeat run, is not the lane's turn;
    // send-heavy chaos seed 8, run 200: an exec row's turn gave up after its tool messages went out, the executor asked
    // for a task meanwhile, and the start carried with the command was left open, its answer called lost).
    const ownLast = lastCarrying(subject, fact.atMs);
    const gaveUpRequest =
      (partlyShown || nothingShown) && answeredLast(subject)
        ? lastRequest
        : (requests.filter((request) => request.atMs <= fact.atMs && failedBy(request, fact.atMs) && carries(request.prompt, subject)).at(-1) ??
          (ownLast?.outcome === 'answer' && !coveredBy(subject, fact.atMs) ? ownLast : undefined));
    const neverAsked = gaveUpRequest === undefined && !requests.some((request) => request.atMs <= fact.atMs && carries(request.prompt, subject));
    const carried = gaveUpRequest?.prompt ?? (neverAsked ? rowClosedByError(subject, fact.atMs)?.content : undefined);
    if (carried === undefined) continue;
    for (const other of subjects) if (carries(carried, other)) ended(subjectKey(other), fact);
    for (const other of candidates) {
      const key = subjectKey(other);
      if (other !== subject && !coveredBy(other, fact.atMs) && !primary.has(key) && !mates.has(key) && carries(carried, other)) {
        mates.set(key, fact);
        if (!cannedFirst.has(key)) cannedFirst.set(key, fact);
      }
    }
  }
  const cannedFor = new Map<string, ShownFact>([...mates, ...primary]);
  return { cannedFor, cannedFirst, endedBy, lastResort, askedAgain, yieldFailed };
}

function logicalAnswers(o: Observations, session: string): LogicalAnswer[] {
  const byPrompt = new Map<string, LogicalAnswer>();
  const subjectsOf = (prompt: string): string[] =>
    subjectsIn(o, session)
      .filter((subject) => carries(prompt, subject))
      .map(subjectKey);
  for (const fact of answersIn(o, session)) {
    if (byPrompt.has(fact.prompt)) continue;
    const answer: LogicalAnswer = {
      sessionKey: session,
      prompt: fact.prompt,
      result: fact.result,
      toolCalls: fact.toolCalls,
      first: fact,
      subjects: subjectsOf(fact.prompt),
      slots: [],
      superseded: false,
      gaveUp: false,
    };
    answer.slots = slotsOf(answer);
    byPrompt.set(fact.prompt, answer);
  }
  const answers = [...byPrompt.values()];
  for (const answer of answers) {
    answer.superseded = answers.some(
      (later) => later !== answer && later.first.index > answer.first.index && answer.subjects.length > 0 && answer.subjects.every((subject) => later.subjects.includes(subject)),
    );
  }
  return answers;
}

function slotsOf(answer: LogicalAnswer): Slot[] {
  const slots = new Map<string, Slot>();
  for (const call of answer.toolCalls) {
    // A reaction and an action on the world offer no text to show: they fill no slot.
    if (showsNoText(call.name)) continue;
    const text = normalized(call.text);
    const slot = slots.get(text) ?? { answer, text, toolCalls: [], shownBy: null };
    slot.toolCalls.push(call);
    slots.set(text, slot);
  }
  for (const block of readResultBlocks(answer.result)) {
    // A block to anyone else is seen by nobody; an empty one shows the user nothing.
    if (block.to !== 'user' || block.body.length === 0) continue;
    const text = normalized(block.body);
    if (!slots.has(text)) slots.set(text, { answer, text, toolCalls: [], shownBy: null });
  }
  return [...slots.values()];
}

/** An answer is given up when every message of its prompt got an error reply after it (and after its last request). */
function markGivenUp(o: Observations, answers: LogicalAnswer[], endedBy: ReadonlyMap<string, readonly ShownFact[]>): void {
  // A context message (it did not mention the agent) is owed no reply, so no error reply answers it: it does not keep
  // an answer that carried it from being given up.
  const context = new Set(o.ledger.userMessages.filter((message) => !message.mentions).map((message) => message.marker));
  for (const answer of answers) {
    const lastAskedMs = Math.max(...o.ledger.requests.filter((request) => request.sessionKey === answer.sessionKey && request.prompt === answer.prompt).map((request) => request.atMs));
    const owed = answer.subjects.filter((subject) => !context.has(subject));
    answer.gaveUp =
      owed.length > 0 &&
      owed.every((subject) =>
        (endedBy.get(subject) ?? []).some((reply) => normalized(reply.text) === normalized(cannedRepliesIn(o)[0]) && reply.atMs >= answer.first.returnedAtMs && reply.atMs >= lastAskedMs),
      );
  }
}
