// Block streaming of a reply (issue 48 item 2; docs/MODEL.md "Block streaming"). OpenClaw can send a reply to a chat
// platform in blocks while the model's turn is still producing it (`agents.defaults.blockStreamingDefault: "on"`, a
// channel's `blockStreaming`): its embedded runner feeds the streamed text to a block chunker
// (src/auto-reply/reply/block-streaming.ts: `blockStreamingChunk` minChars 800 and maxChars 1200 by default, the
// latter capped at the channel's text limit, breaking at paragraphs), each block goes out through the block reply
// pipeline as its own send (src/auto-reply/reply/block-reply-pipeline.ts), and when the run ends the final payloads are
// reconciled with what was streamed: a final whose text the streamed fragments spell (whitespace left out) is not sent
// again (`hasSentPayload`), one that was not streamed is. Read in the 2026.7.1 and 2026.9.6 builds.
//
// The model: with the knob `blockStreaming` on, a chat turn's closing text is streamed after its answer is durable:
// each kept `<message to="user">` body is cut into blocks by `streamBlocks` (OpenClaw's defaults), and each block is
// written as an outbound row of its own (`<stream>:<n>`, stream `<turn>:stream:<hash of the body>`), one block every
// streamBlockMs, so the gateway's pollers deliver each through the same path as any row (refusals, ambiguous results,
// kills and partitions apply). The final dispatch then writes only what was not streamed: nothing for a body whose
// blocks were all written; for one whose stream a fault cut (a kill, a busy database), the blocks not written, joined,
// as one row `<stream>:rest`; a body not streamed at all as before. The gateway keeps a stream's rows in order (no row
// of a stream goes while an earlier one is undelivered) and gives a stream up as a whole.
import { assert } from './assert.ts';

/**
 * `off` (the default: no streaming), `on` (fixed), or a sabotage (tests only), each a real gateway's way:
 * `resend-final`, the final payload is sent whole after its blocks were streamed (OpenClaw before its content-aware
 * dedupe: openclaw/openclaw#70921, PR #61586, PR #12211); `drop-failed-block`, a block's send is made once and a failed
 * one is dropped while the final still counts it as streamed (OpenClaw 2026.7.1: the pipeline credits a block when the
 * dispatcher queued it, not when the platform took it; fixed by PR #145428); `persist-at-end`, the blocks stream before
 * the answer's assistant row is written, which comes at the end of the stream (pi's AgentSession appends the message
 * at `message_end`, after OpenClaw's listeners have sent its blocks), so a turn cut mid-stream and answered anew leaves
 * blocks the user saw with no row.
 */
export const blockStreamingModes = ['off', 'on', 'resend-final', 'drop-failed-block', 'persist-at-end'] as const;
export type BlockStreamingMode = (typeof blockStreamingModes)[number];

/** OpenClaw's DEFAULT_BLOCK_STREAM_MIN: no block but the last is shorter. */
export const streamBlockMinChars = 800;
/** OpenClaw's DEFAULT_BLOCK_STREAM_MAX, capped at the channel's text limit. */
export const streamBlockMaxChars = 1_200;
/** How long the model takes to produce one block (the pace of the stream). */
export const streamBlockMs = 1_500;
/** The text limit block streaming assumes with no platform limit (OpenClaw's DEFAULT_CHUNK_LIMIT). */
export const defaultStreamTextLimit = 4_000;

/**
 * The blocks a body streams in, as OpenClaw's EmbeddedBlockChunker cuts a text that has streamed past maxChars
 * (src/agents/embedded-agent-block-chunker.ts, `paragraph` preference, read in 2026.7.1): while more than maxChars are
 * left, the block ends at the last paragraph break of the window of maxChars that lies at minChars or later, else at
 * the last newline there, else after the last sentence end there, else at the last whitespace there, else at
 * maxChars; the break's whitespace and the newlines after it are dropped. The rest (at most maxChars) is the last
 * block, flushed at text_end. So every block but the last holds at least minChars. (Its Markdown fence rules are left
 * out: the model's texts have no fences.) The blocks, whitespace left out, spell the body.
 */
export function streamBlocks(body: string, textLimit: number): string[] {
  const maxChars = Math.max(1, Math.min(streamBlockMaxChars, textLimit));
  const minChars = Math.min(streamBlockMinChars, maxChars);
  const blocks: string[] = [];
  let start = skipNewlines(body, 0);
  while (body.length - start > maxChars) {
    const window = body.slice(start, start + maxChars);
    const at = breakIndex(window, minChars, maxChars);
    const block = body.slice(start, start + at);
    if (block.trim().length > 0) blocks.push(block);
    const next = start + at;
    start = skipNewlines(body, next < body.length && /\s/.test(body[next] as string) ? next + 1 : next);
  }
  const rest = body.slice(start);
  if (rest.trim().length > 0) blocks.push(rest);
  assert(blocks.join('').replace(/\s+/g, '') === body.replace(/\s+/g, ''), 'the streamed blocks spell the body');
  return blocks;
}

/** Where the chunker breaks a full window (see streamBlocks), an index from minChars to maxChars. */
function breakIndex(window: string, minChars: number, maxChars: number): number {
  const paragraph = window.lastIndexOf('\n\n');
  if (paragraph >= minChars) return paragraph;
  const newline = window.lastIndexOf('\n');
  if (newline >= minChars) return newline;
  let sentence = -1;
  for (const match of window.matchAll(/[.!?](?=\s|$)/g)) if (match.index >= minChars) sentence = match.index + 1;
  if (sentence >= minChars) return sentence;
  for (let at = window.length - 1; at >= minChars; at--) if (/\s/.test(window[at] as string)) return at;
  return maxChars;
}

function skipNewlines(text: string, from: number): number {
  let at = from;
  while (at < text.length && text[at] === '\n') at++;
  return at;
}

/** The stream of one body of a turn's closing text. */
export function streamId(turnId: string, bodyHash: string): string {
  return `${turnId}:stream:${bodyHash}`;
}

/** The outbound row of the n-th block (from 1) of a stream. */
export function streamBlockRowId(stream: string, n: number): string {
  return `${stream}:${n}`;
}

/** The outbound row of what the final dispatch sends of a stream a fault cut: the blocks not streamed. */
export function streamRestRowId(stream: string): string {
  return `${stream}:rest`;
}

/** What an outbound row of a stream carries besides its text: the stream, and the whole reply it is part of. */
export interface StreamRowContent {
  text: string;
  stream: string;
  reply: string;
  /** The stream's last row: its delivery completes the reply (the delivery mirror copies the reply then). */
  last: boolean;
}
