// Issue 48 item 2, block streaming of a reply (src/block-stream.ts): a chat turn's closing text streams in blocks, each
// its own send through the gateway's delivery, and the final dispatch sends only what was not streamed. The fixed
// model shows the reply whole and once: every block streamed leaves the final nothing to send; a runner killed between
// two blocks resumes from the durable final row and sends the rest in one row. Each sabotage is the way a real gateway
// got it wrong, and an invariant catches it:
// - `resend-final`: the final payload goes out whole after its blocks were streamed (OpenClaw before its content-aware
//   dedupe, openclaw/openclaw#70921, PR #61586, PR #12211): the user reads the reply twice, no-duplicate-visible-reply;
// - `drop-failed-block`: a block's failed send is dropped and the final still counts it as streamed (OpenClaw 2026.7.1,
//   which credits a block when its dispatcher queued it; PR #145428): the reply is never shown whole, no-lost-reply;
// - `persist-at-end`: the blocks stream before the answer's row is written (pi appends the assistant message at
//   message_end, after OpenClaw's listeners sent its blocks); killed mid-stream, the turn is answered anew with a
//   message that came meanwhile, and the blocks the user saw belong to an answer with no row:
//   one-assistant-row-per-visible-reply (its rule for a reply seen in part, replies.ts checkUnfinishedRows).
import { describe, expect, it } from 'vitest';
import { chunkText, streamBlocks } from '../../src/index.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import type { BlockStreamingMode } from '../../src/index.ts';
import type { FaultStep, Plan, PlatformPlan } from '../../sim/run/plan.ts';
import type { RunResult } from '../../sim/run/harness.ts';
import { forMessage, handPlan, invariants, notes, outboundRows, reply, run, user, withRun } from './support.ts';

const sql = await loadSqlJs();

const limit = 4_096;
/** A reply of 12 paragraphs, about 5,500 characters: five or six blocks. */
const longText = Array.from({ length: 12 }, (_, index) => `Paragraph ${index + 1} of the long answer: ${'the flight leaves at nine and the meeting notes say the invoice was paid '.repeat(6).trim()}.`).join('\n\n');
const blocks = streamBlocks(longText, limit);

function platform(overrides: Partial<PlatformPlan> = {}): PlatformPlan {
  return { textLimit: limit, rateLimitPer1000: 0, retryAfterMsMax: 5_000, notFound: [], notReadyMsMax: 0, ambiguousPer1000: 0, longReplyPer1000: 0, ...overrides };
}

function plan(mode: BlockStreamingMode, faults: FaultStep[] = [], workload = [user(1_000, 'tell me everything')]): Plan {
  return { ...handPlan(workload, faults), platform: platform(), keylessPlatform: true, blockStreaming: mode };
}

const script = forMessage({ 0: { toolCalls: [], result: reply(longText) } });

/** The reply sent whole: over the platform's limit, it goes out in two parts. */
const wholeParts = chunkText(longText, limit);

/** How many times the user was shown each block, and each part of the reply sent whole. */
function showings(result: RunResult): { blocks: number[]; whole: number[] } {
  const count = (text: string) => result.ledger.shown.filter((fact) => fact.text === text).length;
  return { blocks: blocks.map(count), whole: wholeParts.map(count) };
}

function counted(result: RunResult, row: 'blocks-streamed' | 'final-deduplicated' | 'block-stream-cut'): number {
  return Object.values(result.coverage[row]).reduce((sum, count) => sum + count, 0);
}

describe('a reply streamed in blocks', () => {
  it('is cut as OpenClaw cuts it: blocks of 800 to 1,200 characters but the last, that spell the reply', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(5);
    expect(blocks.slice(0, -1).every((block) => block.length >= 800 && block.length <= 1_200)).toBe(true);
    expect(blocks.join('').replace(/\s+/g, '')).toBe(longText.replace(/\s+/g, ''));
    // A short reply is one block; a limit under 1,200 caps the blocks.
    expect(streamBlocks('done', limit)).toEqual(['done']);
    expect(streamBlocks(longText, 1_000).every((block) => block.length <= 1_000)).toBe(true);
  });

  it('shows each block once, in order, while the turn streams, and the final sends nothing more', async () => {
    await withRun(sql, { bugs: [], plan: plan('on'), script }, (result) => {
      expect(showings(result)).toEqual({ blocks: blocks.map(() => 1), whole: [0, 0] });
      const shownBlocks = result.ledger.shown.filter((fact) => blocks.includes(fact.text));
      expect(shownBlocks.map((fact) => fact.text)).toEqual(blocks);
      // Streamed while the turn ran: the first block was shown before the last was written.
      const written = notes(result, 'stream-block');
      expect(written).toHaveLength(blocks.length);
      expect(shownBlocks[0]?.atMs ?? Infinity).toBeLessThan(written.at(-1)?.timeMs ?? 0);
      expect(outboundRows(result).filter((row) => row.id.includes(':result:') || row.id.endsWith(':rest'))).toEqual([]);
      expect(notes(result, 'stream-final').map((note) => note.fields)).toMatchObject([{ whole: 0, deduplicated: 1, rest: 0 }]);
      expect([counted(result, 'blocks-streamed'), counted(result, 'final-deduplicated'), counted(result, 'block-stream-cut')]).toEqual([blocks.length, 1, 0]);
      expect(result.violations).toEqual([]);
    });
  });

  // The runner is killed 200 ms after its second block was written, and restarts a second later.
  const killAfterSecondBlock: FaultStep = { kind: 'kill-at-phase', phase: 'result-dispatch', nth: 1, delayMs: 200, process: 'runner', restartAfterMs: 1_000 };

  it('cut by a kill between two blocks, resumes from its durable row and sends only the rest, shown whole once', async () => {
    await withRun(sql, { bugs: [], plan: plan('on', [killAfterSecondBlock]), script }, (result) => {
      expect(notes(result, 'stream-block').map((note) => note.fields.block)).toEqual([1, 2]);
      const rest = outboundRows(result).filter((row) => row.id.endsWith(':rest'));
      expect(rest).toHaveLength(1);
      expect(rest[0]?.text).toBe(blocks.slice(2).join('\n\n'));
      expect(showings(result).blocks.slice(0, 2)).toEqual([1, 1]);
      expect(result.ledger.shown.filter((fact) => fact.text === blocks.slice(2).join('\n\n'))).toHaveLength(1);
      expect(counted(result, 'block-stream-cut')).toBe(1);
      // The LLM was asked once: the resumed turn took its answer from the durable final row.
      expect(result.ledger.answers).toHaveLength(1);
      expect(result.violations).toEqual([]);
    });
  });

  it('shows the reply twice when the final is sent whole after its blocks (resend-final)', async () => {
    await withRun(sql, { bugs: [], plan: plan('resend-final'), script }, (result) => {
      expect(showings(result)).toEqual({ blocks: blocks.map(() => 1), whole: [1, 1] });
      expect(invariants(result)).toContain('no-duplicate-visible-reply');
    });
  });

  // The platform refuses the second block's first send (flood control, 2 s).
  const floodOnBlockTwo = (world: RunResult['world']): void => {
    let refused = false;
    world.platform.script.refuse = (send) => {
      if (refused || send.text !== blocks[1]) return undefined;
      refused = true;
      return { reason: 'rate-limit', retryAfterMs: 2_000 };
    };
  };

  it('through flood control on a block, waits and sends it again, and shows the reply whole once', async () => {
    await withRun(sql, { bugs: [], plan: plan('on'), script, prepare: (_sim, _model, world) => floodOnBlockTwo(world) }, (result) => {
      expect(result.ledger.sendRefusals).toHaveLength(1);
      expect(showings(result)).toEqual({ blocks: blocks.map(() => 1), whole: [0, 0] });
      expect(result.violations).toEqual([]);
    });
  });

  it('loses the reply when a failed block is dropped and the final counts it as streamed (drop-failed-block)', async () => {
    const result = await run(sql, { bugs: [], plan: plan('drop-failed-block'), script, prepare: (_sim, _model, world) => floodOnBlockTwo(world) });
    try {
      expect(notes(result, 'block-dropped')).toHaveLength(1);
      expect(showings(result).blocks[1]).toBe(0);
      expect(invariants(result)).toContain('no-lost-reply');
      expect(invariants(result)).not.toContain('no-duplicate-visible-reply');
    } finally {
      result.sim.dispose();
    }
  });

  // m0's stream is cut after its second block (the runner restarts 5 s later); m1 arrives meanwhile and joins m0's turn.
  const cutThenJoined = (mode: BlockStreamingMode): Plan =>
    plan(mode, [{ ...killAfterSecondBlock, restartAfterMs: 5_000 }], [user(1_000, 'tell me everything'), user(6_000, 'and the weather?')]);

  it('keeps the answer whose blocks were seen: resumed from its row, m1 waits for a turn of its own', async () => {
    await withRun(sql, { bugs: [], plan: cutThenJoined('on'), script }, (result) => {
      expect(notes(result, 'members-released')).toHaveLength(1);
      expect(showings(result).blocks.slice(0, 2)).toEqual([1, 1]);
      expect(result.ledger.shown.filter((fact) => fact.text === blocks.slice(2).join('\n\n'))).toHaveLength(1);
      expect(result.ledger.answers).toHaveLength(2);
      expect(result.violations).toEqual([]);
    });
  });

  it('leaves blocks the user saw with no row when the row is written at the stream\'s end (persist-at-end)', async () => {
    await withRun(sql, { bugs: [], plan: cutThenJoined('persist-at-end'), script }, (result) => {
      // The turn re-formed with m1 and got a new answer; the first answer's two blocks were shown, and never its row.
      expect(showings(result).blocks.slice(0, 2)).toEqual([1, 1]);
      expect(result.ledger.answers.filter((answer) => answer.result.includes('Paragraph 1'))).toHaveLength(1);
      expect(result.violations.map((violation) => violation.invariant)).toEqual(['one-assistant-row-per-visible-reply']);
      expect(result.violations[0]?.message).toContain('never shown whole), but state.db has no assistant row');
    });
  });
});
