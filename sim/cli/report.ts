// Human-readable reports: the seed string first, then the violated invariant, the shrunk plan in a few lines, and a
// short timeline of the steps that matter (what the user saw, what was persisted, which fault landed where) with the
// decisive step marked; and the artifacts of a run. Every step number is a trace-event index (`#243`), and a run's
// length is counted in trace events too, in the text and in the JSON.
import { inboundPath, outboundPath, stateDbPath } from '../../src/index.ts';
import type { Violation } from '../checkers/index.ts';
import { type FaultCoverage, shapeTypes } from '../run/coverage.ts';
import type { RunResult } from '../run/harness.ts';
import { faultTypes, phases, sessionKey } from '../run/plan.ts';
import type { TraceEvent } from '../kernel/trace.ts';
import { pc } from './colors.ts';
import { formatMs } from './format.ts';
import { planText } from './plan-text.ts';
import { writeArtifact } from './real.ts';
import { traceViewerHtml } from './viewer.ts';

export { formatMs } from './format.ts';

const timelineLinesMax = 40;
const decisiveMark = '>>';

/** The length of a run in trace events: the counter `step` of a violation indexes. */
export function eventCount(result: RunResult): number {
  return result.sim.trace.events.length;
}

export function runJson(seed: string, result: RunResult): Record<string, unknown> {
  return {
    seed,
    scenario: result.spec.scenario,
    bugs: result.spec.bugs,
    verdict: result.verdict,
    violations: result.violations.map((violation) => ({ invariant: violation.invariant, class: violation.class, message: violation.message, step: violation.step })),
    steps: eventCount(result),
    simTimeMs: result.simTimeMs,
    traceHash: result.traceHash,
  };
}

export function runText(seed: string, result: RunResult): string {
  const lines = [`${pc.bold('seed')} ${pc.cyan(seed)}`];
  const verdict = result.verdict === 'pass' ? pc.green('PASS') : pc.red('FAIL');
  lines.push(`${verdict}  ${result.spec.scenario}  bugs: ${result.spec.bugs.join(', ') || 'none'}  ${eventCount(result)} steps (trace events #0-#${eventCount(result) - 1}), ${formatMs(result.simTimeMs)} simulated, traceHash ${result.traceHash}`);
  const first = result.violations[0];
  if (first !== undefined) {
    for (const violation of result.violations.slice(0, 5)) lines.push(`${pc.red(violation.invariant)} (${violation.class}, step #${violation.step}): ${violation.message}`);
    if (result.violations.length > 5) lines.push(`... and ${result.violations.length - 5} more violations`);
    lines.push('', pc.bold('plan'), ...planText(result.spec.plan));
    lines.push('', pc.bold(`timeline (${decisiveMark} marks step #${first.step}, where ${first.invariant} shows)`), ...timeline(result.sim.trace.events, first));
  }
  return lines.join('\n');
}

/** The notable events up to the violation, focused on the violation's session when it names one; the decisive step is marked. */
export function timeline(events: readonly TraceEvent[], violation: Violation): string[] {
  const session = /agent:main:chat:\d+/.exec(violation.message)?.[0];
  const decisive = Math.max(violation.step, 0);
  const notable = events.filter((event, index) => index < decisive && describeEvent(event) !== undefined && (session === undefined || belongsTo(event, session)));
  const shown = notable.slice(-timelineLinesMax);
  const lines = shown.map((event) => timelineLine(event, describeEvent(event) ?? '', '  '));
  if (notable.length > shown.length) lines.unshift(`  ... ${notable.length - shown.length} earlier events`);
  const at = events[decisive];
  const what = at === undefined ? '' : (describeEvent(at) ?? genericEvent(at));
  lines.push(pc.red(at === undefined ? `${decisiveMark}${formatMs(violation.timeMs).padStart(9)}  #${decisive}` : timelineLine(at, what, decisiveMark)) + `  ${pc.red(`<- ${violation.invariant} (${violation.class})`)}`);
  return lines;
}

function timelineLine(event: TraceEvent, text: string, mark: string): string {
  return `${mark}${formatMs(event.timeMs).padStart(9)}  #${String(event.index).padEnd(6)} ${text}`;
}

function genericEvent(event: TraceEvent): string {
  const fields = Object.entries(event.fields).map(([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`);
  const text = `${event.kind} ${fields.join(' ')}`;
  return text.length <= 100 ? text : `${text.slice(0, 97)}...`;
}

function belongsTo(event: TraceEvent, session: string): boolean {
  const field = event.fields.session;
  return field === undefined || field === session;
}

function describeEvent(event: TraceEvent): string | undefined {
  const f = event.fields;
  switch (event.kind) {
    case 'model.user-says':
      return `user says ${JSON.stringify(f.text)} (${String(f.delivery)})`;
    case 'model.exec-run':
      return `node host runs ${String(f.run)}`;
    case 'model.exec-ingest':
      return f.row === null ? `exec events drained, all duplicates` : `exec ${String(f.runs)} persisted as prompt ${String(f.row)}`;
    case 'model.exec-duplicate-dropped':
      return `replayed exec.finished ${String(f.run)} dropped`;
    case 'model.turn-start':
      return `turn ${String(f.turn)} starts (attempt ${String(f.attempt)})`;
    case 'model.orphan-repair':
      return `orphaned user entry ${String(f.orphan)} repaired ${f.persisted === true ? 'on disk' : 'in memory only'}`;
    case 'model.merge':
      return `turn ${String(f.merged)} merged into ${String(f.turn)}`;
    case 'model.tool-call':
      return `${String(f.tool)}(${JSON.stringify(f.text)}) in ${String(f.turn)}`;
    case 'model.result':
      return `result of ${String(f.turn)}: blocks ${String(f.blocks)}, dispatched ${String(f.kept)}`;
    case 'model.flush':
      return `state.db flush for ${String(f.turn)}: ${String(f.written)} rows from index ${String(f.from)}`;
    case 'model.visible':
      return pc.green(`user sees ${JSON.stringify(f.text)} (${String(f.kind)} ${String(f.key)})`);
    case 'model.turn-completed':
      return `turn ${String(f.turn)} completed`;
    case 'model.turn-transient':
      return `turn ${String(f.turn)} failed transiently`;
    case 'proc.kill':
      return pc.yellow(`SIGKILL ${String(f.name)}`);
    case 'proc.restart':
      return `restart ${String(f.name)}`;
    case 'net.reset':
    case 'net.partition':
    case 'net.heal':
      return pc.yellow(`${event.kind.slice(4)} ${String(f.a)} <-> ${String(f.b)}`);
    case 'net.duplicate':
      return pc.yellow(`link replays message ${String(f.id)} ${String(f.from)} -> ${String(f.to)}`);
    case 'net.resend':
      return pc.yellow(`${String(f.from)} resends message ${String(f.id)} after reconnect`);
    default:
      return undefined;
  }
}

export function coverageText(coverage: FaultCoverage): string {
  const columns = [...phases, 'idle'] as const;
  const header = `  ${'fault'.padEnd(17)}${columns.map((column) => column.padStart(17)).join('')}`;
  const rows = [...faultTypes, ...shapeTypes].map((type) => `  ${type.padEnd(17)}${columns.map((column) => String(coverage[type][column]).padStart(17)).join('')}`);
  return [header, ...rows].join('\n');
}

/** Write the run's trace, databases and transcripts under `dir` as real files. */
export function writeArtifacts(dir: string, seed: string, result: RunResult): string[] {
  const written: string[] = [];
  const put = (name: string, data: string | Uint8Array): void => {
    const path = `${dir}/${name}`;
    writeArtifact(path, data);
    written.push(path);
  };
  put('report.json', `${JSON.stringify({ ...runJson(seed, result), simSeed: result.spec.seed, plan: result.spec.plan }, null, 2)}\n`);
  put('trace.jsonl', result.sim.trace.events.map((event) => JSON.stringify(event)).join('\n') + '\n');
  put('trace.html', traceViewerHtml(result, { seed }));
  const sqlite = result.sim.sqlite;
  const dbs = new Set(sqlite.paths());
  for (let index = 0; index < result.spec.plan.sessions; index++) {
    const session = sessionKey(index);
    for (const path of [inboundPath(session), outboundPath(session)]) if (dbs.has(path)) put(`db${path}`, sqlite.export(path));
  }
  if (dbs.has(stateDbPath)) put(`db${stateDbPath}`, sqlite.export(stateDbPath));
  for (const path of result.sim.disk.paths()) {
    const isTranscript = path.includes('.jsonl');
    if (isTranscript) put(`disk${path}`, result.sim.disk.peek(path) ?? '');
  }
  return written;
}
