// The text helpers the suppression of verbatim repeats rests on (seed 001): whitespace normalisation, the
// case-sensitive verbatim-duplicate test, the `<message to="NAME">BODY</message>` splitter, content hashes and ids.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { contentHash, isVerbatimDuplicate, normalizeWhitespace, parseMessageBlocks, shortId } from '../../../src/text.ts';

const whitespace = fc.constantFrom(' ', '  ', '\n', '\t', '\r\n', ' \n\t ');
const word = fc.stringMatching(/^[A-Za-z0-9.,!?'-]{1,8}$/);
/** Words joined and surrounded by arbitrary runs of whitespace. */
const paddedWords = fc
  .record({ words: fc.array(word, { minLength: 1, maxLength: 6 }), gaps: fc.array(whitespace, { minLength: 8, maxLength: 8 }) })
  .map(({ words, gaps }) => ({
    words,
    text: (gaps[0] ?? '') + words.map((w, index) => w + (gaps[index + 1] ?? ' ')).join(''),
  }));

describe('normalizeWhitespace', () => {
  it('collapses every run of whitespace to one space and trims', () => {
    expect(normalizeWhitespace('  a \n\n b\t\tc  ')).toBe('a b c');
    expect(normalizeWhitespace('\n\t ')).toBe('');
    expect(normalizeWhitespace('Hello')).toBe('Hello');
  });

  it('keeps the words in order, joined by single spaces, and is idempotent', () => {
    fc.assert(
      fc.property(paddedWords, ({ words, text }) => {
        const normalized = normalizeWhitespace(text);
        expect(normalized).toBe(words.join(' '));
        expect(normalizeWhitespace(normalized)).toBe(normalized);
      }),
    );
  });

  it('never leaves leading, trailing or doubled whitespace in any string', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('a', 'B', ' ', '\n', '\t', '\u00a0', 'é') }), (text) => {
        const normalized = normalizeWhitespace(text);
        expect(normalized).not.toMatch(/^\s|\s$|\s\s|[\n\t\u00a0]/);
      }),
    );
  });
});

describe('isVerbatimDuplicate', () => {
  it('matches a payload that differs only in whitespace', () => {
    expect(isVerbatimDuplicate('  The answer\n is 42 ', ['other', 'The answer is\t42'])).toBe(true);
  });

  it('is case-sensitive', () => {
    expect(isVerbatimDuplicate('The answer is 42', ['the answer is 42'])).toBe(false);
    expect(isVerbatimDuplicate('DONE', ['Done'])).toBe(false);
  });

  it('never matches an empty or whitespace-only body, even against an empty payload', () => {
    expect(isVerbatimDuplicate('', [''])).toBe(false);
    expect(isVerbatimDuplicate(' \n\t', ['', ' '])).toBe(false);
  });

  it('does not match against no payloads, nor a payload that merely contains the body', () => {
    expect(isVerbatimDuplicate('hello', [])).toBe(false);
    expect(isVerbatimDuplicate('hello', ['hello world'])).toBe(false);
    expect(isVerbatimDuplicate('hello world', ['hello'])).toBe(false);
  });

  it('matches any re-spacing of a sent payload, and nothing whose words differ', () => {
    fc.assert(
      fc.property(paddedWords, paddedWords, (sent, body) => {
        const reSpaced = `\n${sent.words.join(' \t ')}  `;
        expect(isVerbatimDuplicate(reSpaced, [sent.text])).toBe(true);
        expect(isVerbatimDuplicate(body.text, [sent.text])).toBe(body.words.join(' ') === sent.words.join(' '));
      }),
    );
  });
});

describe('parseMessageBlocks', () => {
  it('returns trimmed bodies with their destinations, in order, ignoring text outside blocks', () => {
    const text = 'thinking...\n<message to="user">\n  Hi there \n</message> between <message to="ops">second</message>tail';
    expect(parseMessageBlocks(text)).toEqual([
      { to: 'user', body: 'Hi there' },
      { to: 'ops', body: 'second' },
    ]);
  });

  it('drops empty and whitespace-only bodies', () => {
    expect(parseMessageBlocks('<message to="user"></message><message to="user">  \n </message><message to="user">x</message>')).toEqual([
      { to: 'user', body: 'x' },
    ]);
  });

  it('keeps unknown and empty destinations for the caller to judge', () => {
    expect(parseMessageBlocks('<message to="nobody">a</message><message to="">b</message>')).toEqual([
      { to: 'nobody', body: 'a' },
      { to: '', body: 'b' },
    ]);
  });

  it('keeps multi-line bodies and their inner whitespace', () => {
    expect(parseMessageBlocks('<message to="user">line 1\n\n  line 2</message>')).toEqual([{ to: 'user', body: 'line 1\n\n  line 2' }]);
  });

  it('returns nothing for text without blocks or with an unclosed block', () => {
    expect(parseMessageBlocks('plain answer')).toEqual([]);
    expect(parseMessageBlocks('<message to="user">never closed')).toEqual([]);
  });

  it('round-trips rendered blocks: every non-empty body comes back trimmed, with its destination', () => {
    const block = fc.record({
      to: fc.stringMatching(/^[a-z]{0,6}$/),
      body: fc.string({ unit: fc.constantFrom('a', 'Z', '1', ' ', '\n', '"', '>', '<') }).filter((body) => !body.includes('</message>')),
      outside: fc.stringMatching(/^[a-z \n]{0,5}$/),
    });
    fc.assert(
      fc.property(fc.array(block, { maxLength: 6 }), (blocks) => {
        const text = blocks.map(({ to, body, outside }) => `${outside}<message to="${to}">${body}</message>`).join('');
        const expected = blocks.filter(({ body }) => body.trim().length > 0).map(({ to, body }) => ({ to, body: body.trim() }));
        expect(parseMessageBlocks(text)).toEqual(expected);
      }),
    );
  });
});

describe('contentHash', () => {
  it('is 32-bit FNV-1a as 8 hex digits (known vectors)', () => {
    expect(contentHash('')).toBe('811c9dc5');
    expect(contentHash('a')).toBe('e40c292c');
    expect(contentHash('foobar')).toBe('bf9cf968');
  });

  it('is stable across calls and always 8 lowercase hex digits', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        const hash = contentHash(text);
        expect(hash).toMatch(/^[0-9a-f]{8}$/);
        expect(contentHash(text)).toBe(hash);
      }),
    );
  });

  it('depends on order and content', () => {
    expect(contentHash('ab')).not.toBe(contentHash('ba'));
    expect(contentHash('turn-1:block-0')).not.toBe(contentHash('turn-1:block-1'));
  });
});

describe('shortId', () => {
  it('draws 8 hex characters (pi entry ids), one draw per character over the whole alphabet', () => {
    const ranges: [number, number][] = [];
    let next = 0;
    const id = shortId((min, max) => {
      ranges.push([min, max]);
      return (next++ * 5) % 16;
    });
    expect(id).toBe('05af49e3');
    expect(ranges).toEqual(Array.from({ length: 8 }, () => [0, 15]));
  });
});
