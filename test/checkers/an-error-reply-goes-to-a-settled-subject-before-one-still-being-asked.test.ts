// The attribution's tier rule (sim/checkers/attribution.ts, docs/MODEL.md "The attribution's rules"): a subject that
// is never asked about after the error reply (settled) takes it before one the LLM is asked about again, whatever
// else is known of either. Crediting the reply to a subject still being asked about says the system acted on a
// request after telling the user it failed (failure-notice-final), so it is done only when no settled subject shows
// any sign that its turn gave up. Chaos campaign seed 401, run 8314: a turn carrying m2 (answered whole long before,
// then merged into the turn again), m4, m5 and m6 gave up and told each message; a command's finish meanwhile failed
// once in a turn of its own, which retried. The fourth error reply, m2's, was credited to the command, and its retry
// 10 s later was called acting on a failed request.
import { describe, expect, it } from 'vitest';
import { attributeAll } from '../../sim/checkers/attribution.ts';
import { checkFailureNotices } from '../../sim/checkers/finality.ts';
import { Placement } from '../../sim/checkers/placement.ts';
import type { Violation } from '../../sim/checkers/violation.ts';
import { KeylessHistory, session } from './keyless-history.ts';

const errorReply = 'Sorry, something went wrong. Please try again.';
const finish = 'Exec finished (node=node-1 id=run-0, code 2)';

describe('an error reply of a turn that tells each message', () => {
  it('goes to a message whose answer was shown whole before a command still being asked about', () => {
    const h = new KeylessHistory();
    h.userTypes(1_000, 'm2', 'can you check the build?');
    const forM2 = h.ledger.requestReceived(session, 'can you check the build? <m2>', 1_100);
    h.answers(forM2, 'green', 1_200);
    h.sendsAndShows(1_300, 'green');
    h.userTypes(2_000, 'm4', 'and the calendar?');
    h.userTypes(2_100, 'm5', 'and the weather?');
    const prompt = 'can you check the build? <m2>\nand the calendar? <m4>\nand the weather? <m5>';
    h.ledger.requestFailed(h.ledger.requestReceived(session, prompt, 3_000), 3_100);
    h.ledger.commandRequested({ sessionKey: session, runId: 'run-0', command: 'make', output: 'error', exitCode: 2, timedOut: false, requestedAtMs: 3_200 });
    h.ledger.requestFailed(h.ledger.requestReceived(session, finish, 4_000), 4_100);
    // The turn of m2, m4 and m5 gives up and tells each message.
    const replies = [4_200, 4_300, 4_400].map((atMs) => h.sendsAndShows(atMs, errorReply).shown);
    // The command's turn retries, and is answered.
    const retry = h.ledger.requestReceived(session, finish, 5_000);
    h.answers(retry, 'the build failed', 5_100);
    h.sendsAndShows(5_200, 'the build failed');

    const o = h.observations();
    const attribution = attributeAll(o).get(session);
    expect(attribution?.cannedFor.get('<m4>')).toBe(replies[0]);
    expect(attribution?.cannedFor.get('<m5>')).toBe(replies[1]);
    expect(attribution?.cannedFor.get('<m2>')).toBe(replies[2]);
    expect(attribution?.cannedFirst.has('run:run-0')).toBe(false);
    const out: Violation[] = [];
    checkFailureNotices(o, attributeAll(o), out, new Placement(o));
    expect(out).toEqual([]);
  });
});
