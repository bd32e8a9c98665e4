// The checkers' own readers of the text formats the system under test speaks, written from the formats as
// docs/MODEL.md documents them (never imported from src/: a judge that reads with the accused's parser agrees with
// its mistakes, and could not judge a real component):
// - whitespace comparison (nanoclaw's): every run of whitespace is one space, leading and trailing whitespace goes,
//   case is kept;
// - a result's `<message to="NAME">BODY</message>` blocks (nanoclaw's `dispatchResultText`): each block's body,
//   trimmed, is one message to NAME; text outside blocks is seen by nobody.

/**
 * Collapse every run of whitespace to one space and drop it at both ends; case-sensitive. Whitespace is what
 * ECMAScript calls white space or a line terminator (the set of `\s`).
 */
export function collapseWhitespace(text: string): string {
  // Most texts are collapsed already (single spaces, none at the ends): they are returned as they are.
  if (!needsCollapse.test(text)) return text;
  return text.replace(/\s+/g, ' ').trim();
}

/** Whitespace at either end, two in a row, or any whitespace but a plain space. */
const needsCollapse = /^\s|\s$|\s\s|[^\S ]/;

/** One `<message to="NAME">BODY</message>` block of a closing text, as the checkers read it. */
export interface ResultBlock {
  to: string;
  /** The body, trimmed (may be empty: the checkers decide what an empty message means). */
  body: string;
}

const open = '<message to="';
const openEnd = '">';
const close = '</message>';

/**
 * The blocks of a closing text, in order. A block opens with exactly `<message to="`, a name with no `"` in it and
 * `">`, and ends at the first `</message>` after it; the reading goes on after that close. An opening with no close
 * after it, or a malformed opening, is no block, and the reading goes on from the next character.
 */
export function readResultBlocks(text: string): ResultBlock[] {
  const blocks: ResultBlock[] = [];
  let from = 0;
  for (;;) {
    const start = text.indexOf(open, from);
    if (start < 0) return blocks;
    const nameStart = start + open.length;
    const quote = text.indexOf('"', nameStart);
    const closeAt = quote < 0 || !text.startsWith(openEnd, quote) ? -1 : text.indexOf(close, quote + openEnd.length);
    if (closeAt < 0) {
      from = start + 1;
      continue;
    }
    blocks.push({ to: text.slice(nameStart, quote), body: text.slice(quote + openEnd.length, closeAt).trim() });
    from = closeAt + close.length;
  }
}
