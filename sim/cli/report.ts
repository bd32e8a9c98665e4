// Human-readable reports: the seed string first, then the violated invariant, the shrunk plan in a few lines, and a
// short timeline of the steps that matter (what the user saw, what was persisted, which fault landed where) with the
// decisive step marked; and the artifacts of a run. Every step number is a trace-event index (`#243`), and a run's
// length is counted in trace events too, in the text and in the JSON.
import { inboundPath, outboundPath, stateDbPath } from '../../src/index.ts';
import type { Violation } from '../checkers/index.ts';
import { coverageRows, type FaultCoverage } from '../run/coverage.ts';
import type { RunResult } from '../run/harness.ts';
import { phases, sessionKey } from '../run/plan.ts';
import type { TraceEvent } from '../kernel/trace.ts';
import { pc } from './colors.ts';
import { formatMs } from './format.ts';
import { planText } from './plan-text.ts';
import { writeArtifact } from './real.ts';
import { codeUnderTest, type FindingMatch, findingText, matchFinding, ranRealCode } from './real-code.ts';
import { traceViewerHtml } from './viewer.ts';
import { agentDatabaseImage } from '../checkers/agent-db.ts';

export { formatMs } from './format.ts';

/** Notable events shown before the decisive one (the ones that led to it), and after it (the ones that complete it). */
const timelineLinesMax = 40;
const timelineLinesAfterMax = 8;
const decisiveMark = '>>';

/** The length of a run in trace events: the counter `step` of a violation indexes. */
export function eventCount(result: RunResult): number {
  return result.sim.trace.events.length;
}

export function runJson(seed: string, result: RunResult): Record<string, unknown> {
  const code = codeUnderTest(result.realCode);
  const real = ranRealCode(code);
  return {
    seed,
    scenario: result.spec.scenario,
    bugs: result.spec.bugs,
    realCode: code,
    verdict: result.verdict,
    violations: result.violations.map((violation) => ({
      invariant: violation.invariant,
      class: violation.class,
      message: violation.message,
      step: violation.step,
      ...(real ? { finding: matchFinding(violation, code, result.sim.trace.events, result.violations) } : {}),
    })),
    steps: eventCount(result),
    simTimeMs: result.simTimeMs,
    traceHash: result.traceHash,
  };
}

export function runText(seed: string, result: RunResult): string {
  const lines = [`${pc.bold('seed')} ${pc.cyan(seed)}`];
  const verdict = result.verdict === 'pass' ? pc.green('PASS') : pc.red('FAIL');
  lines.push(`${verdict}  ${result.spec.scenario}  bugs: ${result.spec.bugs.join(', ') || 'none'}  ${eventCount(result)} steps (trace events #0-#${eventCount(result) - 1}), ${formatMs(result.simTimeMs)} simulated, traceHash ${result.traceHash}`);
  const code = codeUnderTest(result.realCode);
  const real = ranRealCode(code);
  lines.push(`code under test: ${real ? pc.bold(code.text) : code.text}`);
  const first = result.violations[0];
  if (first !== undefined) {
    for (const violation of result.violations.slice(0, 5)) lines.push(`${pc.red(violation.invariant)} (${violation.class}, step #${violation.step}): ${oneLine(violation.message)}`);
    if (result.violations.length > 5) lines.push(`... and ${result.violations.length - 5} more violations`);
    if (real) lines.push(...findingLines(result.violations.map((violation) => matchFinding(violation, code, result.sim.trace.events, result.violations))));
    lines.push('', pc.bold('plan'), ...planText(result.spec.plan));
    lines.push('', pc.bold(`timeline (${decisiveMark} marks step #${first.step}, where ${first.invariant} shows)`), ...timeline(result.sim.trace.events, first));
  }
  return lines.join('\n');
}

/** How the shrink of a failure went, for its FAIL line: finished, or stopped at its budget with a plan that may not be minimal. */
export function shrinkText(failure: { shrinkRuns: number; shrinkComplete: boolean; shrinkRunsMax?: number }): string {
  if (failure.shrinkComplete) return `shrunk in ${failure.shrinkRuns} runs`;
  return failure.shrinkRunsMax === 0 ? 'not shrunk (--shrink-runs 0): the plan as drawn' : `shrink stopped at ${failure.shrinkRuns} runs; not minimal`;
}

/** The violations of a run with real code, grouped by the documented finding each matches (or none: new). */
function findingLines(matches: readonly FindingMatch[]): string[] {
  const groups = new Map<string, number>();
  for (const match of matches) groups.set(findingText(match), (groups.get(findingText(match)) ?? 0) + 1);
  return [...groups].map(([text, count]) => `${count === matches.length ? 'every violation' : `${count} of ${matches.length} violations`}: ${text.startsWith('new') ? pc.yellow(text) : text}`);
}

/**
 * Text on one line: control characters (newlines, tabs, ...) and backslashes escaped as JSON escapes them, so a
 * violation message or an event field that holds run text cannot break the one-line layout of a report.
 */
export function oneLine(text: string): string {
  return text.replace(/[\\\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, (character) => jsonEscapes[character] ?? `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

const jsonEscapes: Readonly<Record<string, string>> = { '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\b': '\\b', '\f': '\\f' };

/**
 * The notable events that led to the violation, the decisive one (its step) marked, and a few notable events after it
 * that complete the evidence (what the system did next); focused on the violation's session when it names one.
 */
export function timeline(events: readonly TraceEvent[], violation: Violation): string[] {
  const session = /agent:main:chat:\d+/.exec(violation.message)?.[0];
  const decisive = Math.min(Math.max(violation.step, 0), Math.max(events.length - 1, 0));
  const notable = (event: TraceEvent): boolean => describeEvent(event) !== undefined && (session === undefined || belongsTo(event, session));
  const before = events.slice(0, decisive).filter(notable);
  const shown = before.slice(-timelineLinesMax);
  const lines = shown.map((event) => timelineLine(event, describeEvent(event) ?? '', '  '));
  if (before.length > shown.length) lines.unshift(`  ... ${before.length - shown.length} earlier events`);
  lines.push(decisiveLine(events[decisive], violation, decisive));
  const after = events.slice(decisive + 1).filter(notable);
  lines.push(...after.slice(0, timelineLinesAfterMax).map((event) => timelineLine(event, describeEvent(event) ?? '', '  ')));
  if (after.length > timelineLinesAfterMax) lines.push(`  ... ${after.length - timelineLinesAfterMax} later events`);
  return lines;
}

/**
 * The decisive line: the event at the violation's step and what the checker found there (for a kernel event that is
 * not notable on its own, such as a commit or an arrival at the platform, the finding comes first and the event after
 * it in brackets), then the invariant.
 */
function decisiveLine(at: TraceEvent | undefined, violation: Violation, step: number): string {
  const found = violation.evidence === undefined ? undefined : oneLine(violation.evidence);
  const described = at === undefined ? undefined : describeEvent(at);
  const text =
    at === undefined ? (found ?? '') : described !== undefined ? `${described}${found === undefined ? '' : `: ${found}`}` : found === undefined ? kernelEvent(at) : `${found} [${kernelEvent(at)}]`;
  const line = at === undefined ? `${decisiveMark}${formatMs(violation.timeMs).padStart(9)}  #${String(step).padEnd(6)} ${text}` : timelineLine(at, text, decisiveMark);
  return pc.red(line) + `  ${pc.red(`<- ${violation.invariant} (${violation.class})`)}`;
}

function timelineLine(event: TraceEvent, text: string, mark: string): string {
  return `${mark}${formatMs(event.timeMs).padStart(9)}  #${String(event.index).padEnd(6)} ${text}`;
}

/** A kernel event that is not notable on its own, named for a decisive line (a commit, an arrival at the platform). */
function kernelEvent(event: TraceEvent): string {
  const f = event.fields;
  switch (event.kind) {
    case 'sql.write':
      return `${String(f.process)} commits to ${String(f.path)}`;
    case 'net.deliver':
      return `message ${String(f.id)} ${String(f.from)} -> ${String(f.to)} arrives`;
    case 'disk.sync':
    case 'disk.append':
    case 'disk.write':
      return `${event.kind.slice(5)} ${String(f.path)}`;
    default:
      return genericEvent(event);
  }
}

function genericEvent(event: TraceEvent): string {
  const fields = Object.entries(event.fields).map(([key, value]) => `${key}=${typeof value === 'string' ? oneLine(value) : JSON.stringify(value)}`);
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
    case 'model.system-event':
      return f.queued === true ? `${String(f.event)} of ${String(f.run)} queued as a system event` : undefined;
    case 'model.exec-ingest':
      return f.row === null ? `exec events drained, all duplicates` : `exec ${String(f.runs)} persisted as prompt ${String(f.row)}`;
    case 'model.heartbeat-run':
      return `the gateway's heartbeat run asks the LLM (${Number(f.candidate) === 0 ? 'primary model' : `fallback ${String(f.candidate)}`})`;
    case 'model.heartbeat-run-failover':
      return `heartbeat run: the ${Number(f.candidate) === 0 ? 'primary model' : `fallback ${String(f.candidate)}`} ${f.reason === 'timeout' ? 'timed out' : 'failed'}${f.last === true ? '' : ', next model'}`;
    case 'model.heartbeat-run-failed':
      return `heartbeat run failed with every model${f.retryMs === null ? '' : `; another wake in ${formatMs(Number(f.retryMs))}`}`;
    case 'model.heartbeat-run-released':
      return `heartbeat row ${String(f.row)} released to the runner with its answer`;
    case 'model.heartbeat-answer-used':
      return `turn ${String(f.turn)} uses the gateway's heartbeat answer`;
    case 'model.exec-duplicate-dropped':
      return `replayed exec.finished ${String(f.run)} dropped`;
    case 'model.turn-start':
      return `turn ${String(f.turn)} starts (attempt ${String(f.attempt)})`;
    case 'model.orphan-repair':
      return `orphaned user entry ${String(f.orphan)} repaired ${f.persisted === true ? 'on disk' : 'in memory only'}`;
    case 'model.merge':
      return `turn ${String(f.merged)} merged into ${String(f.turn)}`;
    case 'model.prompt-persisted':
      return `prompt of ${String(f.turn)} persisted`;
    case 'model.answer':
      return `LLM answer for ${String(f.turn)} received (${String(f.toolCalls)} tool calls)`;
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
    case 'proc.exit':
      return pc.yellow(`${String(f.name)} crashes: ${JSON.stringify(f.error)}`);
    case 'proc.restart':
      return `restart ${String(f.name)}`;
    case 'fault':
      return faultEvent(event);
    case 'disk.crash':
      return pc.yellow(`unsynced writes of ${String(f.path)} lost${Number(f.tornBytes) > 0 ? ` (${String(f.tornBytes)} bytes torn)` : ''}`);
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

/** Faults the kernel records as such: a supervisor's kill and a power loss (a planned kill shows as its SIGKILL). */
function faultEvent(event: TraceEvent): string | undefined {
  const f = event.fields;
  if (f.kind === 'supervisor-kill') return pc.yellow(`${String(f.by)} (supervisor) kills ${String(f.target)}`);
  if (f.kind === 'power-loss') return pc.yellow('power loss: every process killed, unsynced writes lost');
  if (f.kind === 'fault-phase-end') return 'faults stop';
  return undefined;
}

export function coverageText(coverage: FaultCoverage): string {
  const columns = [...phases, 'idle'] as const;
  const header = `  ${'fault'.padEnd(17)}${columns.map((column) => column.padStart(17)).join('')}`;
  const rows = coverageRows.map((type) => `  ${type.padEnd(17)}${columns.map((column) => String(coverage[type][column]).padStart(17)).join('')}`);
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
    // A SQLite-era release's databases on the simulated disk (its agent DB among them), each with the committed frames
    // of its -wal applied: a standalone file any SQLite tool opens (sim/checkers/agent-db.ts).
    if (path.endsWith('.sqlite') && result.sim.disk.isBinary(path)) {
      const image = agentDatabaseImage(result.sim.disk.peekBytes(path), result.sim.disk.peekBytes(`${path}-wal`));
      if (image !== undefined) put(`db${path}`, image);
    }
  }
  return written;
}
