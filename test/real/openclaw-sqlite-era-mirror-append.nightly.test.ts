// The SQLite era's delivery mirror (issue 45): 2026.8.1's and 2026.9.6's `appendAssistantMessageToSessionTranscript`
// (region src/config/sessions/transcript.ts) writing the delivered reply into the release's agent DB on the simulated
// node:sqlite, run as the `ma` part (sim/real/openclaw/mirror-append-sqlite.ts), under Node 24
// (test/real/openclaw-node24.ts).
//
// The differential: the gateway's DeliveryMirror mirrors a generated sequence of delivered replies into one session,
// with the model's append (into the model's JSONL file) and with each release's (into the agent DB), each in a machine
// of its own; the mirror entries left are compared (text, idempotency key, in order, each the child of the one before).
// They agree but for the difference docs/MODEL.md names, which the test states as its reading of each release and
// checks on every case: the latest equivalent assistant message (the latest message on the active branch is an
// assistant one with the mirror's trimmed text) is the answer and nothing is written, in 2026.8.1 for every mirror
// the gateway makes and in 2026.9.6 only for one without an idempotency key (the model appends). The same in all
// three: nothing for a blank text or a key the session holds; the text trimmed; the key kept.
//
// The runs: a frozen chaos plan whose mirror is on and contended (chaos-13-before-issue-44), with every part of each
// release: a pass, the same trace hash twice, every mirror the release's and each one an event of the agent DB, which
// the checkers read. The invariant can fail: with a mirror that writes each reply twice (a second key, so the
// release's key check lets it through), one-assistant-row-per-visible-reply fails on the agent DB.
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { DeliveryMirror } from '../../src/delivery-mirror.ts';
import { modelSessionManagerFactory } from '../../src/session-manager-port.ts';
import { agentDbTranscriptProblems, loadAgentDbReader } from '../../sim/checkers/agent-db.ts';
import { readAgentDb } from '../../sim/checkers/durable.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { Simulation } from '../../sim/kernel/simulation.ts';
import { openclawGatewayPartsFor } from '../../sim/real/openclaw/gateway-parts.ts';
import { type OpenclawRelease, openclawSqliteEraReleases } from '../../sim/real/openclaw/index.ts';
import { openclawAgentDbPath, RealSqliteMirrorAppend } from '../../sim/real/openclaw/mirror-append-sqlite.ts';
import { node24Here, rerunUnderNode24, sqliteEraMissing, underNode24 } from './openclaw-node24.ts';
import { frozenSpec, runTwice } from './openclaw-runs.ts';

const missing = sqliteEraMissing();
const sessionKey = 'agent:main:chat:0';
const file = '/data/sessions/agent%3Amain%3Achat%3A0.jsonl';

/** One delivered reply: a text of a small pool (padded or blank), its key a new one or an earlier reply's of that text. */
interface Delivered {
  text: 0 | 1 | 2;
  padded: boolean;
  redelivery: boolean;
}
interface MirrorCase {
  /** The gateway's mirror passes no key (mode `unkeyed`, before PR #44063). */
  unkeyed: boolean;
  replies: Delivered[];
}

const texts = ['The build is green', 'Deploying now', ''] as const;

/** The sequence as the gateway asks it: each reply's text and key. */
function requestsOf(mirrorCase: MirrorCase): { text: string; key: string }[] {
  const keyOfText = new Map<number, string>();
  return mirrorCase.replies.map((reply, index) => {
    const core = texts[reply.text];
    const key = (reply.redelivery ? keyOfText.get(reply.text) : undefined) ?? `out-${index}`;
    keyOfText.set(reply.text, key);
    return { text: reply.padded ? `  ${core}\n` : core, key };
  });
}

type Rule = 'model' | 'latest-equivalent-always' | 'latest-equivalent-unkeyed';

/** The docs' reading of each release: when its append answers the latest equivalent assistant message instead. */
function ruleOf(release: OpenclawRelease | undefined): Rule {
  if (release === undefined) return 'model';
  return release === '2026.8.1' ? 'latest-equivalent-always' : 'latest-equivalent-unkeyed';
}

/** The mirror entries a sequence leaves, by the rule: text and key (none when the gateway passes none), in order. */
function expectedEntries(mirrorCase: MirrorCase, rule: Rule): { text: string; key: string | null }[] {
  const entries: { text: string; key: string | null }[] = [];
  for (const request of requestsOf(mirrorCase)) {
    const text = request.text.trim();
    // The model's append writes the send's key even when it checks none (unkeyed); a release is handed none then.
    const key = mirrorCase.unkeyed && rule !== 'model' ? null : request.key;
    if (text.length === 0) continue;
    if (!mirrorCase.unkeyed && entries.some((entry) => entry.key === key)) continue;
    const latestEquivalent = entries.at(-1)?.text === text;
    if (latestEquivalent && (rule === 'latest-equivalent-always' || (rule === 'latest-equivalent-unkeyed' && key === null))) continue;
    entries.push({ text, key });
  }
  return entries;
}

interface Mirrored {
  entries: { text: string; key: string | null }[];
  /** Each entry is the child of the one before (the first of none or of a header). */
  chained: boolean;
  escapes: string[];
}

/** One case in a fresh machine: the gateway mirrors the sequence, with the model's append or a release's. */
async function mirrorCase(release: OpenclawRelease | undefined, mirrorCase: MirrorCase, sql: Awaited<ReturnType<typeof loadSqlJs>>): Promise<Mirrored> {
  const sim = new Simulation({ seed: `sqlite-era-mirror/${JSON.stringify(mirrorCase)}`, sql, simTimeMsMax: 600_000 });
  const parts = release === undefined ? undefined : openclawGatewayPartsFor(sim, { release, parts: ['mirror-append'] });
  let done = false;
  sim.spawn('gateway', async (ctx) => {
    const mirror = new DeliveryMirror(ctx, mirrorCase.unkeyed ? 'unkeyed' : 'on', modelSessionManagerFactory, undefined, parts?.mirrorAppend?.(ctx, [sessionKey]));
    for (const request of requestsOf(mirrorCase)) {
      await mirror.mirrorDelivered(sessionKey, request.text, request.key);
      await ctx.timers.sleep(1_000);
    }
    done = true;
  });
  await sim.run();
  parts?.finish?.();
  try {
    if (!done) throw new Error(`the mirror did not finish: ${JSON.stringify(mirrorCase)} (${release ?? 'model'})`);
    if (release === undefined) {
      const lines = (sim.disk.peek(file) ?? '')
        .split('\n')
        .filter((line) => line.length > 0)
        .map((line) => JSON.parse(line) as { type: string; id: string; parentId: string | null; message?: { content: unknown; idempotencyKey?: string; mirror?: { idempotencyKey?: string } } });
      const messages = lines.filter((line) => line.type === 'message');
      return {
        entries: messages.map((line) => ({ text: typeof line.message?.content === 'string' ? line.message.content : ((line.message?.content as { text: string }[] | undefined) ?? []).map((block) => block.text).join(''), key: line.message?.mirror?.idempotencyKey ?? line.message?.idempotencyKey ?? null })),
        chained: messages.every((line, index) => line.parentId === (index === 0 ? null : messages[index - 1]?.id)),
        escapes: [],
      };
    }
    const transcripts = readAgentDb(sim, openclawAgentDbPath).filter((transcript) => transcript.sessionKey === sessionKey);
    const events = transcripts.flatMap((transcript) => transcript.events.filter((event) => event.type === 'message'));
    expect(events.every((event) => event.mirror)).toBe(true);
    return {
      entries: events.map((event) => ({ text: event.text, key: event.idempotencyKey ?? null })),
      chained: transcripts.length <= 1 && events.every((event, index) => event.parentId === (index === 0 ? null : events[index - 1]?.id)),
      escapes: parts?.escapes ?? [],
    };
  } finally {
    sim.dispose();
  }
}

const cases: fc.Arbitrary<MirrorCase> = fc.record({
  unkeyed: fc.boolean(),
  replies: fc.array(fc.record({ text: fc.constantFrom<0 | 1 | 2>(0, 0, 1, 2), padded: fc.boolean(), redelivery: fc.boolean() }), { minLength: 1, maxLength: 4 }),
});

describe.skipIf(missing || !node24Here)(`${underNode24} the SQLite era's mirror append against the model`, () => {
  it('every generated sequence leaves the model’s mirror entries, but for the latest-equivalent rule of each release', async () => {
    const sql = await loadSqlJs();
    await loadAgentDbReader();
    const differed = new Map<string, number>();
    await fc.assert(
      fc.asyncProperty(cases, async (generated) => {
        const model = await mirrorCase(undefined, generated, sql);
        expect(model.entries).toEqual(expectedEntries(generated, 'model'));
        expect(model.chained).toBe(true);
        for (const release of openclawSqliteEraReleases) {
          const real = await mirrorCase(release, generated, sql);
          expect(real.escapes, release).toEqual([]);
          expect(real.entries, `${release} ${JSON.stringify(generated)}`).toEqual(expectedEntries(generated, ruleOf(release)));
          expect(real.chained, release).toBe(true);
          if (real.entries.length !== model.entries.length) differed.set(release, (differed.get(release) ?? 0) + 1);
        }
      }),
      { numRuns: 24, seed: 45 },
    );
    process.stderr.write(`cases where a release wrote fewer mirror entries than the model: ${JSON.stringify([...differed])}\n`);
  }, 600_000);
});

describe.skipIf(missing || !node24Here)(`${underNode24} the SQLite era's mirror append in runs`, () => {
  const parts = ['system-events', 'heartbeat-wake', 'node-events', 'orphan-merge', 'mirror-append'] as const;

  it('a chaos plan with the mirror on passes with every part, twice the same, its mirrors events of the agent DB', async () => {
    const spec = frozenSpec('chaos-13-before-issue-44');
    for (const release of openclawSqliteEraReleases) {
      const label = `${release} chaos-13-before-issue-44`;
      const hash = await runTwice(spec, release, parts, label, (result) => {
        expect(result.verdict, `${label}: ${result.violations.map((violation) => violation.message).join('; ')}`).toBe('pass');
        const appended = result.sim.trace.events.filter((event) => event.kind === 'model.mirror-appended');
        expect(appended.length, label).toBeGreaterThan(5);
        expect(appended.every((event) => event.fields.real === true), label).toBe(true);
        const mirrors = readAgentDb(result.sim, openclawAgentDbPath).flatMap((transcript) => transcript.events.filter((event) => event.mirror));
        // Each appended mirror is an event of the agent DB (committed: the checkers read it so), and no other is.
        expect(mirrors.map((event) => event.id).sort(), label).toEqual(appended.map((event) => String(event.fields.entry)).sort());
      });
      process.stderr.write(`${label} (se, hw, ne, om, ma): trace hash ${hash}\n`);
    }
  }, 900_000);

  it('fails one-assistant-row-per-visible-reply on the agent DB when the mirror writes each reply twice', async () => {
    const spec = frozenSpec('chaos-13-before-issue-44');
    const append = RealSqliteMirrorAppend.prototype.append;
    const twice = vi.spyOn(RealSqliteMirrorAppend.prototype, 'append').mockImplementation(async function (this: RealSqliteMirrorAppend, request) {
      const outcome = await append.call(this, request);
      // The sabotage: the same reply again under a second key, which the release's key check does not know.
      if (outcome.appended) await append.call(this, { ...request, idempotencyKey: `${request.idempotencyKey ?? 'none'}~again` });
      return outcome;
    });
    try {
      const { runSpec } = await import('../../sim/run/harness.ts');
      const result = await runSpec(spec, { sql: await loadSqlJs(), openclaw: { release: '2026.9.6', parts: [...parts] } });
      try {
        const failed = result.violations.filter((violation) => violation.invariant === 'one-assistant-row-per-visible-reply');
        expect(failed.length).toBeGreaterThan(0);
        expect(failed[0]?.message).toMatch(/the agent DB holds 2 delivery mirror events of ".*", but the user was shown it 1 times/);
      } finally {
        result.sim.dispose();
      }
    } finally {
      twice.mockRestore();
    }
  }, 600_000);
});

describe.skipIf(missing || !node24Here)(`${underNode24} a power loss and the agent DB's mirror events`, () => {
  it('takes the commits of the last 30 s (synchronous = NORMAL: not synced), keeps older ones, and the database opens and takes the next mirror', async () => {
    await loadAgentDbReader();
    const sql = await loadSqlJs();
    for (const release of openclawSqliteEraReleases) {
      const sim = new Simulation({ seed: `sqlite-era-mirror-power-loss/${release}`, sql, simTimeMsMax: 600_000 });
      const parts = openclawGatewayPartsFor(sim, { release, parts: ['mirror-append'] });
      const mirrorFrom = (name: string, replies: { atMs: number; text: string; key: string }[]) =>
        sim.spawn(name, async (ctx) => {
          const mirror = new DeliveryMirror(ctx, 'on', modelSessionManagerFactory, undefined, parts.mirrorAppend?.(ctx, [sessionKey]));
          for (const reply of replies) {
            await ctx.timers.sleep(reply.atMs - ctx.clock.nowMs());
            await mirror.mirrorDelivered(sessionKey, reply.text, reply.key);
          }
        });
      const committedBefore: string[][] = [];
      const syncedAfter: string[][] = [];
      mirrorFrom('gateway', [
        { atMs: 1_000, text: 'Older than the writeback', key: 'out-1' },
        { atMs: 50_000, text: 'Committed just before the power loss', key: 'out-2' },
      ]);
      sim.at(55_000, () => {
        committedBefore.push(readAgentDb(sim, openclawAgentDbPath).flatMap((transcript) => transcript.events.filter((event) => event.mirror).map((event) => event.text)));
        sim.powerLoss(['gateway']);
        syncedAfter.push(readAgentDb(sim, openclawAgentDbPath).flatMap((transcript) => transcript.events.filter((event) => event.mirror).map((event) => event.text)));
        // The gateway's next incarnation (a process of its own here) opens the database and mirrors the next reply.
        mirrorFrom('gateway-after', [{ atMs: 60_000, text: 'After the power loss', key: 'out-3' }]);
      });
      await sim.run();
      parts.finish?.();
      const after = readAgentDb(sim, openclawAgentDbPath);
      sim.dispose();
      expect(parts.escapes, release).toEqual([]);
      expect(committedBefore, release).toEqual([['Older than the writeback', 'Committed just before the power loss']]);
      // The commit 5 s old was in the page cache only (frames appended to the -wal, never synced): gone. The one 54 s
      // old had been written back (the disk's 30 s dirty expiry), so it stays.
      expect(syncedAfter, release).toEqual([['Older than the writeback']]);
      expect(after.flatMap((transcript) => transcript.events.filter((event) => event.mirror).map((event) => event.text)), release).toEqual(['Older than the writeback', 'After the power loss']);
      for (const transcript of after) expect(agentDbTranscriptProblems(transcript), release).toEqual([]);
    }
  }, 600_000);
});

describe.skipIf(missing || node24Here)("the SQLite era's mirror append on this Node", () => {
  it("runs its blocks under the workspace's Node 24", () => rerunUnderNode24(import.meta.url, 1_500_000), 1_560_000);
});
