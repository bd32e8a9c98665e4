// Replies shown in parts (issue 48 item 2), read as the user reads them. A platform limits a message's length
// (Telegram 4096 characters, Discord 2000), so a gateway sends a long reply as several messages, and the user reads a
// run of them as one reply. The ledger records every message the platform showed; this reading joins the ones that
// are parts of one text into a single showing, judged by content alone (never by a key or an id of the system):
// - a reply is shown whole when all its parts were shown, in order: the showings, concatenated with whitespace left
//   out (a splitter drops the whitespace it breaks at), spell a text the LLM produced in the session (a payload or a
//   block) or one of the system's canned replies; the whole is shown when its last part is, and stands in that
//   showing's place (its index and time);
// - a showing that is a text of its own (equal to such a text) is a showing as before: every run without parts reads
//   exactly as the ledger has it;
// - a part shown again (a showing equal to a part already read of the same text, that continues nothing) is a repeat:
//   no showing of its own, judged by refusals.ts as a message shown twice (unless the world shows it unavoidable);
// - parts of a text never completed are no showing: the reply was not shown whole (no-lost-reply judges its answer),
//   but the user saw them (`unfinished`: replies.ts asks that their answer has its row, as a shown reply's has);
// - a showing that is none of these stays a showing of its own (the attribution then finds what it is).
// Only a showing of at least partTextMin characters (without whitespace) may open a text's parts: a text is split only
// when it is longer than a platform's limit, and a splitter fills each part but the last to near that limit.
import type { ShownFact } from '../world/ledger.ts';

/** The fewest characters (whitespace left out) of a showing that may be the first part of a longer text. */
export const partTextMin = 500;

/** How a session's showings read once parts are joined. */
export interface PartsReading {
  /** The showings as the user reads them: whole texts and messages of their own, in showing order. */
  showings: ShownFact[];
  /** Parts shown again (no showing of their own). */
  repeats: { shown: ShownFact; text: string }[];
  /** The parts of each whole text read from parts (by the whole's showing), in showing order. */
  partsOf: Map<ShownFact, ShownFact[]>;
  /** Texts whose first parts the user saw and that were never shown whole: the text, and the parts shown. */
  unfinished: { text: string; parts: ShownFact[] }[];
}

/** Text without any whitespace: how parts are compared with the text they split. */
export function squashed(text: string): string {
  return text.replace(/\s+/g, '');
}

interface Open {
  /** The text (as given among the candidates). */
  text: string;
  squashed: string;
  /** How much of it the parts so far spell. */
  read: number;
  parts: ShownFact[];
  done: boolean;
}

/**
 * Read a session's showings (in order, reactions left out by the caller) against the texts that may have been split
 * (`texts`: what the LLM produced in the session and the canned replies, whitespace-normalised).
 */
export function readShowings(shown: readonly ShownFact[], texts: readonly string[]): PartsReading {
  const whole = new Set(texts.map(squashed));
  const long = [...new Set(texts)].filter((text) => squashed(text).length > partTextMin).map((text) => ({ text, squashed: squashed(text) }));
  const showings: ShownFact[] = [];
  const repeats: PartsReading['repeats'] = [];
  const partsOf = new Map<ShownFact, ShownFact[]>();
  const open: Open[] = [];
  for (const fact of shown) {
    const piece = squashed(fact.text);
    if (long.length === 0 || piece.length === 0) {
      showings.push(fact);
      continue;
    }
    // It continues a text whose earlier parts were shown.
    const continued = open.find((candidate) => !candidate.done && candidate.squashed.startsWith(piece, candidate.read));
    if (continued !== undefined) {
      continued.parts.push(fact);
      continued.read += piece.length;
      if (continued.read === continued.squashed.length) {
        continued.done = true;
        const reading: ShownFact = { index: fact.index, sessionKey: fact.sessionKey, text: continued.text, kind: continued.parts[0]?.kind ?? fact.kind, atMs: fact.atMs };
        showings.push(reading);
        partsOf.set(reading, continued.parts);
      }
      continue;
    }
    if (whole.has(piece)) {
      showings.push(fact);
      continue;
    }
    // A part already read of a text (open or shown whole), shown again.
    const repeated = open.find((candidate) => candidate.parts.some((part) => squashed(part.text) === piece));
    if (repeated !== undefined) {
      repeats.push({ shown: fact, text: repeated.text });
      continue;
    }
    // The first part of a long text.
    const first = piece.length >= partTextMin ? long.find((candidate) => candidate.squashed.length > piece.length && candidate.squashed.startsWith(piece)) : undefined;
    if (first !== undefined) {
      open.push({ text: first.text, squashed: first.squashed, read: piece.length, parts: [fact], done: false });
      continue;
    }
    showings.push(fact);
  }
  return { showings, repeats, partsOf, unfinished: open.filter((candidate) => !candidate.done).map((candidate) => ({ text: candidate.text, parts: candidate.parts })) };
}
