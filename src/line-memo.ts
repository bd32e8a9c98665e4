// What the model reads from a JSONL transcript's lines, remembered. The model rereads a transcript in full at every
// repair, open and mirror append (a chaos run parsed each distinct line about nine times), and a file mostly grows by
// appends: the lines of a text read before, or of the text it grew from, are not split and parsed again. Everything
// here is a pure function of the text, so a remembered answer is the answer; parsed JSON is frozen through, so no
// caller can change what another is handed. The memos are bounded (a run's transcripts hold a few hundred lines;
// across runs the texts differ, so they stay small). The checkers keep their own (sim/checkers/durable.ts).

/** A line that does not parse as JSON (JSON.parse threw). */
export const malformed: unique symbol = Symbol('malformed line');
/** A line that is empty or white space only (its trim() is empty). */
export const blank: unique symbol = Symbol('blank line');

/** A line as read: its JSON value (frozen through), or `malformed`, or `blank`. */
export type ReadLine = unknown;

const linesMax = 4_096;
const parsed = new Map<string, ReadLine>();

/** One line as read; remembered by its text. */
export function readLine(line: string): ReadLine {
  const known = parsed.get(line);
  if (known !== undefined) return known;
  if (parsed.size >= linesMax) parsed.clear();
  let value: ReadLine;
  if (line.trim().length === 0) value = blank;
  else {
    try {
      value = deepFreeze(JSON.parse(line));
    } catch {
      value = malformed;
    }
  }
  // JSON.parse never answers undefined, so every line read is remembered.
  parsed.set(line, value);
  return value;
}

/** A text's lines as `text.split('\n')` gives them, each as read, and whether the text holds a \r anywhere. */
export interface ReadText {
  readonly text: string;
  readonly lines: readonly ReadLine[];
  readonly carriageReturn: boolean;
}
/** The texts read last, newest first (a run's few transcripts, and the texts they are about to grow from). */
const recent: ReadText[] = [];
const recentMax = 32;

/**
 * The lines of `text`, each as read (`readLine`). A text read before is answered as it was; one that extends a text
 * read before (which ended with a newline) reads only the lines after it.
 */
export function readLines(text: string): ReadText {
  let from: ReadText | undefined;
  for (const candidate of recent) {
    if (candidate.text === text) return candidate;
    const known = candidate.text;
    // slice, not startsWith: V8 keeps an appended-to string as pieces, which startsWith walks again at every call
    // (more than the parse it saves); a slice makes it one flat string, once.
    if (known.length < text.length && (from === undefined || known.length > from.text.length) && known.endsWith('\n') && text.slice(0, known.length) === known) from = candidate;
  }
  let read: ReadText;
  if (from === undefined) read = { text, lines: text.split('\n').map(readLine), carriageReturn: text.includes('\r') };
  else {
    // The prefix's last line is the empty one after its final newline: the rest's first line starts there.
    const rest = text.slice(from.text.length);
    read = { text, lines: [...from.lines.slice(0, -1), ...rest.split('\n').map(readLine)], carriageReturn: from.carriageReturn || rest.includes('\r') };
  }
  recent.unshift(read);
  if (recent.length > recentMax) recent.pop();
  return read;
}

function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  for (const child of Object.values(value)) deepFreeze(child);
  return Object.freeze(value);
}
