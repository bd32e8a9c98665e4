// Replies in parts (issue 48 item 2): a text longer than the platform's message limit goes out as several messages,
// each its own send. The split follows OpenClaw's `chunkText` (src/auto-reply/chunk.ts, read in the 2026.7.1 build,
// dist/chunk-*.js): a text within the limit is one chunk; otherwise each chunk ends at the last newline inside the
// window of `limit` characters, else at its last whitespace, else at the window's end; the break character itself is
// dropped and the next chunk starts after any newlines. (OpenClaw also keeps parentheses and code fences whole; the
// model's texts have neither.)
import { assert } from './assert.ts';

/** The parts a text is sent in, each at most `limit` characters. */
export function chunkText(text: string, limit: number): string[] {
  assert(Number.isSafeInteger(limit) && limit > 0, `a chunk limit is a positive integer, not ${limit}`);
  if (text.length === 0) return [];
  if (text.length <= limit) return [text];
  const chunks: string[] = [];
  let start = 0;
  while (start < text.length) {
    if (text.length - start <= limit) {
      chunks.push(text.slice(start));
      break;
    }
    const window = text.slice(start, start + limit);
    const lastNewline = window.lastIndexOf('\n');
    const lastWhitespace = Math.max(window.lastIndexOf(' '), window.lastIndexOf('\t'), lastNewline);
    const breakAt = lastNewline > 0 ? lastNewline : lastWhitespace > 0 ? lastWhitespace : limit;
    chunks.push(text.slice(start, start + breakAt));
    let next = start + breakAt + (breakAt < limit ? 1 : 0);
    while (next < text.length && text[next] === '\n') next++;
    start = next;
  }
  return chunks.filter((chunk) => chunk.length > 0);
}
