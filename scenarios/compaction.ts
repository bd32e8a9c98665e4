// compaction (issue 24 item 3): sessions whose transcript context grows past a limit the plan draws, so runs compact it
// (OpenClaw's pre-prompt check over pi's JSONL: a summary call to the LLM, then a `compaction` entry with
// firstKeptEntryId and tokensBefore, and the run goes on). The limit is drawn low enough (80-320 estimated tokens, a
// turn adding about 30-60) that most sessions compact once or more, and a session compacts again as it grows past the
// limit over its kept part and summary. Faults that reach it: runner kills at the model-call phase (a compaction's
// start and its summary are model-call events, so a kill a few ms after one lands during the summary call or between it
// and the append), timed kills and power losses, LLM errors and outages (a summary call that fails fails its attempt),
// stalls, busy databases, link faults, second writers (the delivery mirror appends to the same JSONL under the write
// lock) and key-less platforms; group chat, bursts and a /clear (a new session starts a new transcript).
import { compactionKnobs, type Scenario } from './common.ts';
import { transcriptTurnsPlan } from './transcript-turns.ts';

export const compaction: Scenario = {
  name: 'compaction',
  description: 'transcripts that grow past a context limit are compacted (a summary call, then a compaction entry), under kills, power losses, failing summaries and second writers',
  focus: [],
  plan: transcriptTurnsPlan({ minLength: 4, maxLength: 14 }, {
    compaction: compactionKnobs(),
  }),
};
