// The checkers compare texts as nanoclaw does: whitespace runs collapsed to one space, trimmed. collapseWhitespace
// returns a text already in that form as it is and rewrites the rest; either way it equals the words of the text (split
// at every run of whitespace, empty ones dropped) joined by one space, for any text (Unicode spaces, line separators and
// the byte-order mark included).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { collapseWhitespace } from '../../sim/checkers/formats.ts';

const words = (text: string): string => text.split(/\s+/).filter((word) => word.length > 0).join(' ');
const spaced = fc.string({ unit: fc.constantFrom(' ', '\t', '\n', '\r', '\u00a0', '\u2028', '\ufeff', '\u3000', 'a', 'b', 'é') });

describe('collapseWhitespace', () => {
  it('is the words of the text joined by one space', () => {
    fc.assert(fc.property(fc.oneof(spaced, fc.string({ unit: 'grapheme' })), (text) => collapseWhitespace(text) === words(text)), { numRuns: 20_000, seed: 1 });
  });

  it('keeps a text already collapsed, and rewrites one that is not', () => {
    expect(collapseWhitespace('answer 433 [adaa32780]')).toBe('answer 433 [adaa32780]');
    expect(collapseWhitespace('interim  \nupdate ')).toBe('interim update');
    expect(collapseWhitespace('\u00a0a\tb')).toBe('a b');
  });
});
