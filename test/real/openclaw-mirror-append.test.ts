// The delivery mirror's append of each pinned OpenClaw release (`appendAssistantMessageToSessionTranscript`, region
// src/config/sessions/transcript.ts: 2026.4.24 dist/transcript-C5WPUIcy.js with pi 0.70.2's SessionManager, 2026.7.1
// dist/transcript-0TRBwczD.js with dist/session-accessor-B4Nfa9CN.js) against the model's (src/delivery-mirror.ts), on
// the same generated cases, each in a simulated machine of its own: the gateway's DeliveryMirror mirrors one delivered
// text into a transcript that is missing, empty, a header alone, a conversation the model's runner wrote, or one another
// writer (pi) left with a trailing non-message entry; the key may be there already, the last line may be torn, the text
// may be blank or the latest assistant message's own. The release runs through the adapter a run uses
// (sim/real/openclaw/mirror-append.ts, GatewayParts.mirrorAppend; with 2026.7.1 the release's lock, `wl`, as a run must),
// and nothing reaches the host.
//
// The resulting files are compared line by line (a header; or an entry's type, role, text, markers, idempotency key and
// the line its parentId names; or a line that does not parse). The releases agree with the model but for the
// differences docs/MODEL.md names ("The mirror append, real"), which the test states as its reading of each release
// and checks on every case:
// - the latest equivalent assistant: both releases write nothing when the latest assistant message in file order has
//   the mirror's text (findLatestEquivalentAssistantMessageId); the model appends;
// - a torn last line: 2026.7.1 appends after a newline (appendSerializedJsonlEntry), so the torn line stays a line of its
//   own and the mirror entry parses; the model and 2026.4.24 (pi's appendFileSync) append onto the torn line, and the
//   merged line does not parse (the mirror is lost).
// Everything else is the same in all three: nothing written for a blank text or a key already there (the key scan
// skips lines that do not parse); a missing file gets a header (the ids differ: the model's names its incarnation, the
// releases' the store's session id), an empty one is given a header in place; the entry's role, trimmed text, markers
// and key; its parent is the last entry in file order, a trailing entry of another writer (pi's `model_change`)
// included.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DeliveryMirror } from '../../src/delivery-mirror.ts';
import { modelSessionManagerFactory } from '../../src/session-manager-port.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { Simulation } from '../../sim/kernel/simulation.ts';
import { openclawGatewayPartsFor } from '../../sim/real/openclaw/gateway-parts.ts';
import { type OpenclawRelease, openclawReleases } from '../../sim/real/openclaw/index.ts';
import { openclawMissing } from './openclaw-support.ts';
import { isJulyLine } from '../../sim/real/openclaw/releases.ts';

const missing = openclawMissing('real OpenClaw mirror-append tests');

const sql = await loadSqlJs();
const sessionKey = 'agent:main:chat:0';
const file = '/data/sessions/agent%3Amain%3Achat%3A0.jsonl';
const key = 'out-7';

type FileKind = 'missing' | 'empty' | 'header' | 'conversation' | 'foreign';
type TextKind = 'distinct' | 'blank' | 'latest';

interface MirrorCase {
  file: FileKind;
  /** A mirror entry with the same idempotency key is in the file (a conversation or foreign file only). */
  keyPresent: boolean;
  /** The file ends with a torn line (a conversation or foreign file only). */
  torn: boolean;
  text: TextKind;
  /** Whitespace around the delivered text (the append trims it). */
  padded: boolean;
}

const at = (seconds: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, seconds)).toISOString();
const usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };

function line(value: unknown): string {
  return `${JSON.stringify(value)}\n`;
}

/** The text of the latest assistant message a case's file holds (undefined when it holds none). */
function latestAssistantText(mirrorCase: MirrorCase): string | undefined {
  if (mirrorCase.file !== 'conversation' && mirrorCase.file !== 'foreign') return undefined;
  return mirrorCase.keyPresent ? 'Earlier mirrored reply' : 'Hello there, runner speaking';
}

/** A case's transcript before the mirror (undefined: no file). */
function initialFile(mirrorCase: MirrorCase): string | undefined {
  if (mirrorCase.file === 'missing') return undefined;
  if (mirrorCase.file === 'empty') return '';
  let text = line({ type: 'session', version: 3, id: sessionKey, timestamp: at(0), cwd: '/work' });
  if (mirrorCase.file === 'header') return text;
  text += line({ type: 'message', id: 'u1aaaaaa', parentId: null, timestamp: at(1), message: { role: 'user', content: 'Hi [m-1]', timestamp: Date.parse(at(1)) }, turnId: 't1' });
  text += line({ type: 'message', id: 'a1aaaaaa', parentId: 'u1aaaaaa', timestamp: at(2), message: { role: 'assistant', content: [{ type: 'text', text: 'Hello there, runner speaking' }], api: 'anthropic-messages', provider: 'anthropic', model: 'gatesim-fake', usage, stopReason: 'stop', timestamp: Date.parse(at(2)) }, turnId: 't1' });
  let last = 'a1aaaaaa';
  if (mirrorCase.keyPresent) {
    text += line({ type: 'message', id: 'm1aaaaaa', parentId: last, timestamp: at(3), message: { role: 'assistant', content: [{ type: 'text', text: 'Earlier mirrored reply' }], api: 'openai-responses', provider: 'openclaw', model: 'delivery-mirror', usage, stopReason: 'stop', timestamp: Date.parse(at(3)), idempotencyKey: key } });
    last = 'm1aaaaaa';
  }
  // Another writer's (pi's) entry that is no message: a model change, a child of the last entry.
  if (mirrorCase.file === 'foreign') text += line({ type: 'model_change', id: 'c1aaaaaa', parentId: last, timestamp: at(4), provider: 'openai', modelId: 'gpt-5' });
  if (mirrorCase.torn) text += `{"type":"message","id":"t1aaaaaa","parentId":"${last}","timestamp":"${at(5)}","message":{"role":"user","content":"Half a li`;
  return text;
}

function deliveredText(mirrorCase: MirrorCase): string {
  const core = mirrorCase.text === 'blank' ? '' : mirrorCase.text === 'latest' ? (latestAssistantText(mirrorCase) ?? 'A brand new reply') : 'A brand new reply';
  return mirrorCase.padded ? `  \n${core}\n ` : core;
}

/** One line of a file as compared: a header, an entry (parent as the line number of its parent), or unparsable. */
type Line = { kind: 'header' } | { kind: 'unparsable' } | { kind: 'entry'; type: string; role?: string; text?: string; mirror: boolean; key?: string; parent: number | null | 'dangling' };

function textOf(content: unknown): string | undefined {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return undefined;
  return content.map((block) => (typeof block === 'object' && block !== null && typeof (block as { text?: unknown }).text === 'string' ? (block as { text: string }).text : '')).join('');
}

function linesOf(text: string | undefined): Line[] | 'no file' {
  if (text === undefined) return 'no file';
  const raw = text.split('\n');
  if (raw.at(-1) === '') raw.pop();
  const parsed = raw.map((row) => {
    try {
      return JSON.parse(row) as Record<string, unknown>;
    } catch {
      return undefined;
    }
  });
  const lineOfId = new Map<unknown, number>();
  parsed.forEach((entry, index) => {
    if (entry !== undefined && typeof entry.id === 'string' && entry.type !== 'session') lineOfId.set(entry.id, index);
  });
  return parsed.map((entry): Line => {
    if (entry === undefined) return { kind: 'unparsable' };
    if (entry.type === 'session') return { kind: 'header' };
    const message = entry.message as Record<string, unknown> | undefined;
    const parent = entry.parentId === null ? null : (lineOfId.get(entry.parentId) ?? 'dangling');
    const described: Line = { kind: 'entry', type: String(entry.type), mirror: message?.provider === 'openclaw' && message.model === 'delivery-mirror', parent };
    if (message !== undefined) {
      described.role = String(message.role);
      const text = textOf(message.content);
      if (text !== undefined) described.text = text;
      if (typeof message.idempotencyKey === 'string') described.key = message.idempotencyKey;
    }
    return described;
  });
}

/** One case in a fresh machine: the gateway mirrors the delivered text, with the model's append or a release's. */
async function runMirrorCase(release: OpenclawRelease | undefined, mirrorCase: MirrorCase): Promise<{ lines: Line[] | 'no file'; notes: string[]; escapes: string[] }> {
  const sim = new Simulation({ seed: `mirror-append/${JSON.stringify(mirrorCase)}`, sql, simTimeMsMax: 600_000 });
  const parts = release === undefined ? undefined : openclawGatewayPartsFor(sim, { release, parts: isJulyLine(release) ? ['session-write-lock', 'mirror-append'] : ['mirror-append'] });
  const initial = initialFile(mirrorCase);
  let done = false;
  sim.spawn('gateway', async (ctx) => {
    if (initial !== undefined) {
      await ctx.disk.write(file, initial);
      await ctx.disk.fsync(file);
    }
    const mirror = new DeliveryMirror(ctx, 'on', modelSessionManagerFactory, parts?.sessionWriteLock?.(ctx, 'delivery-mirror'), parts?.mirrorAppend?.(ctx, [sessionKey]));
    await mirror.mirrorDelivered(sessionKey, deliveredText(mirrorCase), key);
    done = true;
  });
  await sim.run();
  const notes = sim.trace.events.filter((event) => String(event.kind).startsWith('model.mirror-')).map((event) => `${String(event.kind).slice('model.'.length)}${typeof event.fields.rule === 'string' ? `:${event.fields.rule}` : ''}`);
  const lines = linesOf(sim.disk.peek(file));
  sim.dispose();
  if (!done) throw new Error(`the mirror did not finish: ${JSON.stringify(mirrorCase)} (${release ?? 'model'})`);
  return { lines, notes, escapes: parts?.escapes ?? [] };
}

const mirrorCases: fc.Arbitrary<MirrorCase> = fc
  .record({
    file: fc.constantFrom<FileKind>('missing', 'empty', 'header', 'conversation', 'foreign'),
    keyPresent: fc.boolean(),
    torn: fc.boolean(),
    text: fc.constantFrom<TextKind>('distinct', 'blank', 'latest'),
    padded: fc.boolean(),
  })
  .map((mirrorCase) => {
    const withEntries = mirrorCase.file === 'conversation' || mirrorCase.file === 'foreign';
    return { ...mirrorCase, keyPresent: withEntries && mirrorCase.keyPresent, torn: withEntries && mirrorCase.torn };
  });

/**
 * The release's file from the model's, by the differences the header names; undefined where the release and the model
 * are the same (the release's file must then equal the model's).
 */
function expectedOfRelease(release: OpenclawRelease, mirrorCase: MirrorCase, model: Line[] | 'no file', before: Line[] | 'no file'): Line[] | 'no file' {
  const latest = latestAssistantText(mirrorCase);
  const appends = mirrorCase.text !== 'blank' && !mirrorCase.keyPresent;
  // The latest equivalent assistant: the release writes nothing.
  if (appends && mirrorCase.text === 'latest' && latest !== undefined) return before;
  if (!appends || model === 'no file' || before === 'no file') return model;
  const expected = model.map((row) => ({ ...row }));
  if (mirrorCase.torn && isJulyLine(release)) {
    // The torn line stays a line of its own; the mirror entry parses, after it.
    expected.splice(expected.length - 1, 1, { kind: 'unparsable' }, { kind: 'entry', type: 'message', role: 'assistant', text: 'A brand new reply', mirror: true, key, parent: parentOfRelease(before) });
    return expected;
  }
  return expected;
}

/** The line of the last entry of any type in file order (the parent all three give the new entry), or null when none. */
function parentOfRelease(before: Line[]): number | null {
  for (let index = before.length - 1; index >= 0; index--) if (before[index]?.kind === 'entry') return index;
  return null;
}

describe.skipIf(missing)('the mirror append: each release against the model', () => {
  it('every generated case gives the model’s file, but for the differences of the releases', async () => {
    // How often each release's file differed from the model's, by the difference that explains it.
    const seen = new Map<string, number>();
    await fc.assert(
      fc.asyncProperty(mirrorCases, async (mirrorCase) => {
        const model = await runMirrorCase(undefined, mirrorCase);
        const before = linesOf(initialFile(mirrorCase));
        for (const release of openclawReleases) {
          const real = await runMirrorCase(release, mirrorCase);
          expect(real.escapes, `${release} ${JSON.stringify(mirrorCase)}`).toEqual([]);
          expect(real.lines, `${release} ${JSON.stringify(mirrorCase)}\nmodel: ${JSON.stringify(model.lines)}`).toEqual(expectedOfRelease(release, mirrorCase, model.lines, before));
          if (JSON.stringify(real.lines) !== JSON.stringify(model.lines)) {
            const reason = mirrorCase.text === 'latest' && latestAssistantText(mirrorCase) !== undefined ? 'latest' : mirrorCase.torn ? 'torn' : mirrorCase.file;
            seen.set(`${release} ${reason}`, (seen.get(`${release} ${reason}`) ?? 0) + 1);
          }
        }
      }),
      { numRuns: 40, seed: 22 },
    );
    // Each named difference was met (the cases are fixed by the seed).
    expect([...seen.keys()].sort()).toEqual(['2026.4.24 latest', '2026.7.1 latest', '2026.7.1 torn', '2026.7.35 latest', '2026.7.35 torn']);
  }, 600_000);
});
