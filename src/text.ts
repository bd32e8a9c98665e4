// Text helpers shared by the runner, the tool server and the checkers' expectations.
import { assert } from './assert.ts';

/** Collapse every run of whitespace to one space and trim (nanoclaw's comparison, case-sensitive). */
export function normalizeWhitespace(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

export function isVerbatimDuplicate(body: string, sentPayloads: readonly string[]): boolean {
  const normalized = normalizeWhitespace(body);
  if (normalized.length === 0) return false;
  return sentPayloads.some((payload) => normalizeWhitespace(payload) === normalized);
}

export interface MessageBlock {
  to: string;
  body: string;
}

const blockPattern = /<message to="([^"]*)">([\s\S]*?)<\/message>/g;

/** Split result text into `<message to="NAME">BODY</message>` blocks; bodies are trimmed, empty ones dropped. */
export function parseMessageBlocks(text: string): MessageBlock[] {
  const blocks: MessageBlock[] = [];
  for (const match of text.matchAll(blockPattern)) {
    const body = (match[2] ?? '').trim();
    if (body.length > 0) blocks.push({ to: match[1] ?? '', body });
  }
  return blocks;
}

/** 8-hex-character id from a random source (pi's entry ids). */
export function shortId(draw: (min: number, max: number) => number): string {
  const alphabet = '0123456789abcdef';
  let id = '';
  for (let i = 0; i < 8; i++) id += alphabet[draw(0, alphabet.length - 1)];
  assert(/^[0-9a-f]{8}$/.test(id), `an entry id is 8 hex characters, not ${id}`);
  return id;
}

/** 32-bit FNV-1a of a string, as 8 hex digits: deterministic ids derived from content. */
export function contentHash(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0).toString(16).padStart(8, '0');
}
