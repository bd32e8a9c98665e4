// no-process-crash: a task of a live process that throws anything but the errors the model handles (a transient
// LLM error, a busy database) crashes the process, as an uncaught exception would. The LLM API's client here throws
// a plain Error once, on the only message: the runner dies, the gateway's sweep restarts it and the turn is retried
// and answered, so the crash is the only thing wrong, and the checker names the process. (One message, not two:
// with a second message arriving during the retry backoff, the crashed turn is merged into it instead.)
import { describe, expect, it } from 'vitest';
import { runnerName } from '../../src/index.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { handPlan, invariants, marker, user, withRun } from '../model/support.ts';
import { firstReply, input, messagesOf, type Prepare, shown } from './support.ts';

const sql = await loadSqlJs();
const oneMessage = handPlan([user(1_000, 'hello there')]);

const throwOnce: Prepare = (_sim, _model, world) => {
  const api = world.modelApi;
  const complete = api.complete.bind(api);
  let thrown = false;
  api.complete = async (request, timers) => {
    if (request.prompt.includes(marker(0)) && !thrown) {
      thrown = true;
      throw new Error('model client: unexpected end of response');
    }
    return complete(request, timers);
  };
};

describe('no-process-crash', () => {
  it('holds on the untouched run', async () => {
    await withRun(sql, input(undefined, oneMessage), (result) => {
      expect(result.sim.processes.crashes).toEqual([]);
      expect(result.violations).toEqual([]);
    });
  });

  it('fires, naming the runner, when a plain Error escapes a turn', async () => {
    await withRun(sql, input(throwOnce, oneMessage), (result) => {
      expect(result.sim.processes.crashes.map((crash) => crash.name)).toEqual([runnerName]);
      // The runner came back and the message was answered after all.
      expect(shown(result)).toEqual([firstReply]);
      expect(invariants(result)).toEqual(['no-process-crash']);
      expect(messagesOf(result, 'no-process-crash')).toEqual([`${runnerName} crashed: model client: unexpected end of response`]);
      const violation = result.violations[0];
      expect(violation?.class).toBe('crash');
      expect(result.sim.trace.events[violation?.step ?? -1]?.kind).toBe('proc.exit');
    });
  });
});
