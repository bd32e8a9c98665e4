// Issue 48 item 2: the user reads a run of parts as one reply (sim/checkers/parts.ts). A reply is shown whole when all
// its parts were shown, in order (whitespace a splitter dropped at a break does not count); a part shown again is a
// repeat (judged as a message shown twice); parts that never complete a reply are no showing of it; a showing that is
// a text of its own reads as before.
import { describe, expect, it } from 'vitest';
import { partTextMin, readShowings } from '../../sim/checkers/parts.ts';
import type { ShownFact } from '../../sim/world/ledger.ts';

const paragraph = (n: number): string => `Paragraph ${n}: ${'the flight leaves at nine and the notes say the invoice was paid '.repeat(8).trim()}.`;
const whole = [1, 2, 3, 4, 5, 6].map(paragraph).join(' ');
const parts = [paragraph(1) + ' ' + paragraph(2), paragraph(3) + ' ' + paragraph(4), paragraph(5) + ' ' + paragraph(6)];
const texts = [whole, 'on it', 'Session cleared.'];

function shown(list: string[]): ShownFact[] {
  return list.map((text, index) => ({ index, sessionKey: 's', text, kind: 'message', atMs: 1_000 * (index + 1) }));
}

describe('a reply shown in parts', () => {
  it('has parts long enough to open a reply', () => {
    expect(parts[0]?.replace(/\s+/g, '').length).toBeGreaterThanOrEqual(partTextMin);
  });

  it('is one showing of the whole text, at its last part, when every part is shown in order', () => {
    const reading = readShowings(shown(['on it', ...parts]), texts);
    expect(reading.showings.map((fact) => [fact.text, fact.atMs, fact.index])).toEqual([['on it', 1_000, 0], [whole, 4_000, 3]]);
    expect(reading.repeats).toEqual([]);
  });

  it('reads the same when the splitter dropped the whitespace it broke at', () => {
    const reading = readShowings(shown(parts.map((part) => part.trim())), texts);
    expect(reading.showings.map((fact) => fact.text)).toEqual([whole]);
  });

  it('is no showing when a part is missing or out of order', () => {
    expect(readShowings(shown([parts[0] as string, parts[2] as string]), texts).showings.map((fact) => fact.text)).not.toContain(whole);
    expect(readShowings(shown([parts[1] as string, parts[0] as string, parts[2] as string]), texts).showings.map((fact) => fact.text)).not.toContain(whole);
  });

  it('keeps the first parts of a reply never shown whole as unfinished (seen, though no showing of it)', () => {
    const reading = readShowings(shown(['on it', parts[0] as string, parts[1] as string]), texts);
    expect(reading.unfinished.map((open) => [open.text, open.parts.map((fact) => fact.index)])).toEqual([[whole, [1, 2]]]);
    expect(readShowings(shown(parts), texts).unfinished).toEqual([]);
  });

  it('has a part shown again as a repeat, the reply still shown once', () => {
    const reading = readShowings(shown([parts[0] as string, parts[0] as string, parts[1] as string, parts[2] as string, parts[2] as string]), texts);
    expect(reading.showings.map((fact) => fact.text)).toEqual([whole]);
    expect(reading.repeats.map((repeat) => repeat.shown.index)).toEqual([1, 4]);
  });

  it('has every part of a reply sent over again as repeats', () => {
    const reading = readShowings(shown([...parts, ...parts]), texts);
    expect(reading.showings.map((fact) => fact.text)).toEqual([whole]);
    expect(reading.repeats).toHaveLength(3);
  });

  it('leaves a run without parts as the ledger has it (the same showings, the same objects)', () => {
    const facts = shown(['on it', 'on it', 'answer 12 [a1]', 'Session cleared.']);
    const reading = readShowings(facts, texts);
    expect(reading.showings).toEqual(facts);
    reading.showings.forEach((fact, index) => expect(fact).toBe(facts[index]));
  });
});
