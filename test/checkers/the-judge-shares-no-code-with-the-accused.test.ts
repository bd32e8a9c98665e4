// The checkers share no code with the model they judge (docs/ARCHITECTURE.md sections 1 and 5, issue 23). They read the
// reply format and compare whitespace with readers of their own (sim/checkers/formats.ts), written from docs/MODEL.md,
// and take the system's canned texts, file locations and limits as a description the run hands them
// (sim/checkers/system.ts; the harness builds the model's from its exports). This test feeds the checkers' readers
// and the model's (src/text.ts) the same inputs and shows where they agree and where they differ; it keeps the
// documented fallback description equal to the model's own; and it shows the description handed in is what judges.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { normalizeWhitespace, parseMessageBlocks } from '../../src/index.ts';
import { attributeAll } from '../../sim/checkers/attribution.ts';
import { collapseWhitespace, readResultBlocks } from '../../sim/checkers/formats.ts';
import { referenceSystem, type SystemDescription } from '../../sim/checkers/system.ts';
import { modelDescription } from '../../sim/run/harness.ts';
import { KeylessHistory, session } from './keyless-history.ts';

/** The checkers' blocks as the checkers use them: an empty body shows the user nothing, so no slot is made of it. */
function shownBlocks(text: string): { to: string; body: string }[] {
  return readResultBlocks(text).filter((block) => block.body.length > 0);
}

const fragments = ['<message to="', 'user', 'bob', '">', '</message>', '"', '<', '>', '/', ' ', '\n', '\t', '\u00a0', 'a', 'B', '<message', ' to=', "'", '</message', 'message>'];
const blockish = fc.array(fc.constantFrom(...fragments), { maxLength: 40 }).map((parts) => parts.join(''));
const spacey = fc.array(fc.constantFrom(' ', '\n', '\t', '\r', '\u00a0', '\u2003', '\u2028', '\ufeff', 'a', 'B', 'é', '😀', '.'), { maxLength: 30 }).map((parts) => parts.join(''));

describe('the checkers read the reply format with a reader of their own', () => {
  it('reads the documented format as the model does', () => {
    const cases = [
      '<message to="user">hello</message>',
      'before <message to="user">  one \n</message> between <message to="bob">two</message> after',
      '<message to="user">a</message><message to="user">a</message>',
      '<message to="user">multi\nline\n\nbody</message>',
      'no blocks at all',
      '<message to="">nameless</message>',
    ];
    for (const text of cases) expect(shownBlocks(text), text).toEqual(parseMessageBlocks(text));
    expect(readResultBlocks('x <message to="user">  one \n</message> <message to="bob">two</message>')).toEqual([
      { to: 'user', body: 'one' },
      { to: 'bob', body: 'two' },
    ]);
  });

  it('agrees with the model on malformed and nested text too (only empty bodies differ, and the checkers drop those)', () => {
    const edges = [
      '<message to="user">unclosed',
      '<message to="user">x<message to="user">y</message>',
      '<message to="user" >spaced</message>',
      "<message to='user'>quoted</message>",
      '<message to="us"er">broken</message><message to="user">ok</message>',
      '<message to="user"></message>',
      '<message to="user">   </message>',
      '<Message to="user">case</Message>',
    ];
    for (const text of edges) expect(shownBlocks(text), text).toEqual(parseMessageBlocks(text));
    // The one difference: the checkers' reader reports an empty block, the model's parser drops it.
    expect(readResultBlocks('<message to="user">   </message>')).toEqual([{ to: 'user', body: '' }]);
    expect(parseMessageBlocks('<message to="user">   </message>')).toEqual([]);
    fc.assert(
      fc.property(blockish, (text) => {
        expect(shownBlocks(text)).toEqual(parseMessageBlocks(text));
      }),
      { numRuns: 2_000, seed: 23 },
    );
  });

  it('compares whitespace as the model does', () => {
    expect(collapseWhitespace('  a \n\t b  ')).toBe('a b');
    expect(collapseWhitespace('A  b')).not.toBe(collapseWhitespace('a b'));
    fc.assert(
      fc.property(spacey, (text) => {
        expect(collapseWhitespace(text)).toBe(normalizeWhitespace(text));
      }),
      { numRuns: 2_000, seed: 23 },
    );
  });
});

describe('the system under test is described to the checkers', () => {
  it("the documented fallback is the model's own description", () => {
    const { transcriptPath: modelPath, ...modelData } = modelDescription;
    const { transcriptPath: referencePath, ...referenceData } = referenceSystem;
    expect({ ...referenceData, name: '' }).toEqual({ ...modelData, name: '' });
    for (const id of ['agent:main:chat:0', 'telegram:chat-1', 'a b/c?d#e', 'session-1']) expect(referencePath(id)).toBe(modelPath(id));
  });

  it('judges canned replies by the description handed in, not by the model', () => {
    const other: SystemDescription = { ...referenceSystem, name: 'another gateway', clearedReply: 'Conversation reset.' };
    const history = new KeylessHistory();
    history.userTypes(17_000, 'm4', '/clear');
    const cleared = history.sendsAndShows(20_000, 'Conversation reset.');

    const judged = attributeAll({ ...history.observations(), system: other }).get(session);
    expect(judged?.unexplained).toEqual([]);
    expect(judged?.cannedFor.get('<m4>')).toBe(cleared.shown);

    // Judged as the model, the same showing is a reply nobody produced.
    const asModel = attributeAll({ ...history.observations(), system: modelDescription }).get(session);
    expect(asModel?.unexplained.map((entry) => entry.reason)).toEqual(['never-produced']);
  });
});
