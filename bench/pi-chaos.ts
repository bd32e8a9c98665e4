// Chaos with the real pi SessionManager, plan by plan: each chaos plan seed in a range runs once with pi (or with the
// model's own SessionManager, for the control) and is classed as a pass, a failure in a run whose power loss dropped
// unsynced JSONL bytes (pi never fsyncs: docs/MODEL.md "Finding: pi loses a reply the user saw when the machine loses
// power"), or any other failure, whose seed string is printed (each failure's is). Usage: tsx bench/pi-chaos.ts <from>
// <to> [pi|model]; prints one JSON object last.
import { findScenario } from '../scenarios/index.ts';
import { encodeSeedString } from '../sim/cli/seed-string.ts';
import { loadSqlJs } from '../sim/kernel/sqlite.ts';
import { generateSpec } from '../sim/run/generate.ts';
import { runSpec } from '../sim/run/harness.ts';

const [fromText, toText, managerText = 'pi'] = process.argv.slice(2);
const from = Number(fromText);
const to = Number(toText);
if (!Number.isInteger(from) || !Number.isInteger(to) || from < 0 || to < from || (managerText !== 'pi' && managerText !== 'model')) {
  console.error('usage: tsx bench/pi-chaos.ts <from> <to> [pi|model]  (plan seeds from..to, integers)');
  process.exit(2);
}
const sessionManager = managerText;
const sql = await loadSqlJs();
const chaos = findScenario('chaos');
if (chaos === undefined) throw new Error('no chaos scenario');
const counts = { sessionManager, from, to, pass: 0, failAfterTranscriptLoss: 0, failOther: 0, powerLossRuns: 0 };
const byInvariant: Record<string, number> = {};
for (let seed = from; seed <= to; seed++) {
  const spec = generateSpec(chaos, [], seed, undefined);
  const powerLoss = spec.plan.faults.some((fault) => fault.kind.startsWith('power-loss'));
  if (powerLoss) counts.powerLossRuns++;
  const result = await runSpec(spec, { sql, ...(sessionManager === 'pi' ? { sessionManager: 'pi' as const } : {}) });
  if (result.verdict === 'pass') {
    counts.pass++;
  } else {
    const transcriptLoss = result.sim.trace.events.some(
      (event) => event.kind === 'disk.crash' && String(event.fields.path).endsWith('.jsonl') && Number(event.fields.lostBytes) + Number(event.fields.tornBytes) > 0,
    );
    for (const violation of result.violations) byInvariant[violation.invariant] = (byInvariant[violation.invariant] ?? 0) + 1;
    const seedString = encodeSeedString({ scenario: 'chaos', ...(sessionManager === 'pi' ? { sessionManager: 'pi' as const } : {}), bugs: [], seed, path: undefined }, spec);
    const kind = powerLoss && transcriptLoss ? 'after transcript loss' : 'other';
    if (powerLoss && transcriptLoss) counts.failAfterTranscriptLoss++;
    else counts.failOther++;
    console.log(`failure (${kind}): ${seedString} ${result.violations.map((violation) => violation.invariant).join(',')}`);
  }
  result.sim.dispose();
}
console.log(JSON.stringify({ ...counts, byInvariant }));
