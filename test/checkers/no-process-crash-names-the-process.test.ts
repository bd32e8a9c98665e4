// no-process-crash: a task of a live process that throws anything but the errors the model handles (a transient
// model error, a busy database) crashes the process, as an uncaught exception would. The model API's client here
// throws a plain Error once, on the only turn: the runner dies, the gateway's sweep restarts it and the turn is
// retried and answered, so the crash is the only thing wrong, and the checker names the process. (One turn, not
// two: with a second message arriving during the retry backoff, the crashed turn is merged into it instead.)
import { describe, expect, it } from 'vitest';
import { type ModelRequest, runnerName } from '../../src/index.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { handPlan, invariants, notes, user, visible, withRun } from '../model/support.ts';
import { firstTurn, messagesOf, type Prepare } from './support.ts';

const sql = await loadSqlJs();

const oneTurn = handPlan([user(1_000, 'hello there')]);
const run = (prepare?: Prepare) => ({ bugs: [], plan: oneTurn, ...(prepare === undefined ? {} : { prepare }) });

const throwOnceOn =
  (turnId: string): Prepare =>
  (_sim, model) => {
    const api = model.world.modelApi;
    const answer = api.answer.bind(api);
    let thrown = false;
    api.answer = (request: ModelRequest) => {
      if (request.turnId === turnId && !thrown) {
        thrown = true;
        throw new Error('model client: unexpected end of response');
      }
      return answer(request);
    };
  };

describe('no-process-crash', () => {
  it('holds on the untouched run', async () => {
    await withRun(sql, run(), (result) => {
      expect(result.sim.processes.crashes).toEqual([]);
      expect(result.violations).toEqual([]);
    });
  });

  it('fires, naming the runner, when a plain Error escapes a turn', async () => {
    await withRun(sql, run(throwOnceOn(firstTurn)), (result) => {
      expect(result.sim.processes.crashes.map((crash) => crash.name)).toEqual([runnerName]);
      // The runner came back and the turn was retried and answered after all.
      expect(notes(result, 'turn-completed').map((note) => [note.fields.turn, note.fields.tries])).toEqual([[firstTurn, 2]]);
      expect(visible(result).map((message) => message.turnId)).toEqual([firstTurn]);
      expect(invariants(result)).toEqual(['no-process-crash']);
      expect(messagesOf(result, 'no-process-crash')).toEqual([`${runnerName} crashed: model client: unexpected end of response`]);
      const violation = result.violations[0];
      expect(violation?.class).toBe('crash');
      expect(result.sim.trace.events[violation?.step ?? -1]?.kind).toBe('proc.exit');
    });
  });
});
