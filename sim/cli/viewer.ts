// The trace viewer: one self-contained HTML page (inline style and script, no network) that shows a run as swimlanes
// over simulated time (user and platform, gateway, runner, tool server, node host, network, disk, databases), every
// fault where it landed, the violated invariant at its step with the facts that break it, the chat as the user saw it
// beside the durable transcripts, and a log of the notable events. Model notes and faults are shown one by one;
// kernel bookkeeping (sends, deliveries, writes, syncs, SQL statements) is drawn as density and collapsed in the log,
// so a run of tens of thousands of events stays readable. A pure function of the run result; report.ts writes it.
import type { Violation } from '../checkers/index.ts';
import type { RunResult } from '../run/harness.ts';
import type { TraceEvent } from '../kernel/trace.ts';
import { assert } from '../kernel/assert.ts';
import { contentSecurityPolicy, viewerCss, viewerScript } from './viewer-assets.ts';
import { clip, escapeHtml, ledgerHtml, sessionsHtml, stepLink } from './viewer-durable.ts';
import { describeEvent, FaultLabeller, fieldsText, formatTimeMs, isNoise, type LaneId, laneOf, lanes, type TimeAxis, timeAxis } from './viewer-events.ts';
import { codeUnderTest, findingText, matchFinding, ranRealCode } from './real-code.ts';

export interface ViewerOptions {
  /** The seed string that replays the run, shown in the header. */
  seed?: string;
}

interface Item {
  event: TraceEvent;
  lane: LaneId;
  fault: string | undefined;
  noise: boolean;
  percent: number;
}

const noiseBins = 600;
/** Collapsed runs of kernel events up to this size list their events in the log. */
const noiseListedMax = 12;

export function traceViewerHtml(result: RunResult, options: ViewerOptions = {}): string {
  const events = result.sim.trace.events;
  const axis = timeAxis(events, result.simTimeMs);
  const violationSteps = new Set(result.violations.map((violation) => violation.step));
  const items = analyse(events, axis, violationSteps);
  const title = `gatesim ${result.spec.scenario} ${result.verdict}`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${contentSecurityPolicy}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${viewerCss}</style>
</head>
<body>
${headerHtml(result, options, events.length)}
${violationsHtml(result, events)}
<h2>Swimlanes over simulated time</h2>
${timelineHtml(items, axis, result.violations, events)}
<h2>Chat as the user saw it, beside the durable transcripts</h2>
${sessionsHtml(result)}
<h2>Event log</h2>
<p class="meta">Model notes and faults in full; kernel events collapsed (every event is in trace.jsonl). Step numbers are trace-event indexes.</p>
${logHtml(items, result.violations)}
<script>${viewerScript}</script>
</body>
</html>
`;
}

function analyse(events: readonly TraceEvent[], axis: TimeAxis, violationSteps: ReadonlySet<number>): Item[] {
  const labeller = new FaultLabeller();
  return events.map((event, index) => {
    assert(event.index === index, `trace event ${index} has index ${event.index}`);
    const fault = labeller.label(event);
    const noise = isNoise(event, fault) && !violationSteps.has(index);
    return { event, lane: laneOf(event), fault, noise, percent: axis.percent(event.timeMs) };
  });
}

function headerHtml(result: RunResult, options: ViewerOptions, eventCount: number): string {
  const bugs = result.spec.bugs.length === 0 ? 'none' : result.spec.bugs.join(', ');
  const seed = options.seed === undefined ? '' : `<div class="meta">seed string <code class="seed">${escapeHtml(options.seed)}</code></div>`;
  return `<header>
<h1>gatesim trace: ${escapeHtml(result.spec.scenario)} <span class="verdict ${result.verdict}">${result.verdict.toUpperCase()}</span></h1>
${seed}
<div class="meta code-under-test">code under test: ${escapeHtml(codeUnderTest(result.realCode).text)}</div>
<div class="meta">bugs: ${escapeHtml(bugs)} · ${eventCount} steps (trace events #0-#${eventCount - 1}) · ${formatTimeMs(result.simTimeMs)} simulated · traceHash <code>${escapeHtml(result.traceHash)}</code> · ${result.spec.plan.sessions} session(s), ${result.spec.plan.faults.length} planned faults, faults stop at ${formatTimeMs(result.spec.plan.faultPhaseMs)}</div>
</header>`;
}

function violationsHtml(result: RunResult, events: readonly TraceEvent[]): string {
  const [first, ...others] = result.violations;
  if (first === undefined) return '<p class="meta">Every invariant held.</p>';
  // Where the violation's evidence became true: the event at its step, and what the checker found there.
  const at = (violation: Violation): string => {
    const event = events[violation.step];
    const found = violation.evidence === undefined ? '' : ` — ${clip(violation.evidence, 400)}`;
    if (event === undefined) return `end of run (${formatTimeMs(violation.timeMs)})${found}`;
    return `step ${stepLink(violation.step)} at ${formatTimeMs(event.timeMs)}: <code>${clip(describeEvent(event), 300)}</code>${found}`;
  };
  const code = codeUnderTest(result.realCode);
  // With real code in the run, each violation says whether docs/MODEL.md documents it as a finding about that code.
  const finding = (violation: Violation): string => (ranRealCode(code) ? `<div class="meta finding">${escapeHtml(findingText(matchFinding(violation, code, events, result.violations)))}</div>\n` : '');
  const show = (violation: Violation): string => `<button class="show-step" data-step="${violation.step}">show on the timeline</button>`;
  const card = `<div class="violation" data-invariant="${escapeHtml(first.invariant)}" data-step="${first.step}">
<div><span class="name">${escapeHtml(first.invariant)}</span> <span class="tag">${escapeHtml(first.class)}</span> ${show(first)}</div>
<div class="message">${clip(first.message)}</div>
<div class="meta">shows at ${at(first)}</div>
${finding(first)}${ledgerHtml(result, first)}
</div>`;
  const rows = others.map(
    (violation) => `<tr class="violation-more" data-invariant="${escapeHtml(violation.invariant)}" data-step="${violation.step}"><td class="name">${escapeHtml(violation.invariant)}</td><td><span class="tag">${escapeHtml(violation.class)}</span></td><td>${clip(violation.message, 400)}<div class="meta">shows at ${at(violation)}</div>${finding(violation)}</td><td>${show(violation)}</td></tr>`,
  );
  const more = rows.length === 0 ? '' : `<details class="more-violations"><summary>${rows.length} more violation(s)</summary><table>${rows.join('\n')}</table></details>`;
  return `<h2>Violated invariants (${result.violations.length})</h2>\n${card}\n${more}`;
}

function timelineHtml(items: readonly Item[], axis: TimeAxis, violations: readonly Violation[], events: readonly TraceEvent[]): string {
  const used = new Set(items.map((item) => item.lane));
  const shown = lanes.filter((lane) => lane.id !== 'other' || used.has('other'));
  const violationSteps = new Set(violations.map((violation) => violation.step));
  const rows = shown.map((lane) => {
    const marks = lane.id === 'faults' ? items.filter((item) => item.fault !== undefined) : items.filter((item) => item.lane === lane.id && !item.noise);
    const own = lane.id === 'faults' ? [] : items.filter((item) => item.lane === lane.id && item.noise);
    const html = marks.map((item) => markHtml(item, violationSteps)).join('') + noiseHtml(own);
    return `<div class="lane" data-lane="${lane.id}"><div class="label">${escapeHtml(lane.label)}</div><div class="track">${html}</div></div>`;
  });
  const ticks = axis.ticks.map((tick) => `<span class="tick" style="left:${pct(tick.percent)}">${formatTimeMs(tick.timeMs)}</span>`).join('');
  const legend = `<span class="legend"><i class="track-legend" style="background:#1565c0;width:5px;height:12px"></i>user <i style="background:#2e7d32;width:5px;height:12px"></i>shown <i style="background:#607089;width:3px;height:12px"></i>model note <i style="background:#8e6bbf;width:3px;height:12px"></i>recovery <i class="fault" style="width:9px;height:9px"></i>fault <i style="background:#9fb0c8;width:8px;height:8px"></i>kernel events</span>`;
  return `<div class="controls"><button id="zoom-out">−</button><span id="zoom-level">1x</span><button id="zoom-in">+</button><button id="zoom-fit">fit</button>
<label><input type="checkbox" id="toggle-noise" checked> kernel events</label>${legend}</div>
<div class="scroll"><div class="inner">
<div class="axis"><div class="label">time</div><div class="track">${ticks}</div></div>
${rows.join('\n')}
<div class="overlay">${overlayHtml(items, axis, violations, events)}</div>
</div></div>
<div id="detail">Click an event mark for its details.</div>`;
}

function markHtml(item: Item, violationSteps: ReadonlySet<number>): string {
  const event = item.event;
  const classes: string[] = [];
  if (item.fault !== undefined) classes.push('fault');
  else if (event.kind === 'model.user-says') classes.push('user');
  else if (event.kind === 'model.visible') classes.push('visible');
  else if (event.kind === 'proc.restart' || event.kind === 'net.heal' || event.kind === 'net.release' || event.kind === 'net.resend') classes.push('recover');
  if (violationSteps.has(event.index)) classes.push('at-violation');
  const label = item.fault === undefined ? '' : `FAULT: ${item.fault}\n`;
  const title = `${label}#${event.index} at ${formatTimeMs(event.timeMs)} [${item.lane}] ${event.kind}\n${fieldsText(event.fields)}`;
  return `<i class="${classes.join(' ')}" style="left:${pct(item.percent)}" data-i="${event.index}" title="${escapeHtml(title)}"></i>`;
}

/** Kernel events of one lane as a density strip: one bar per bin, its height by the square root of its count. */
function noiseHtml(items: readonly Item[]): string {
  if (items.length === 0) return '';
  const bins = new Map<number, Map<string, number>>();
  for (const item of items) {
    const bin = Math.min(noiseBins - 1, Math.floor((item.percent / 100) * noiseBins));
    const counts = bins.get(bin) ?? new Map<string, number>();
    counts.set(item.event.kind, (counts.get(item.event.kind) ?? 0) + 1);
    bins.set(bin, counts);
  }
  const totals = [...bins.values()].map((counts) => [...counts.values()].reduce((sum, count) => sum + count, 0));
  const countMax = Math.max(1, ...totals);
  return [...bins.entries()]
    .map(([bin, counts], index) => {
      const total = totals[index] ?? 0;
      const height = 3 + Math.round(9 * Math.sqrt(total / countMax));
      const title = `${total} kernel events: ${[...counts.entries()].map(([kind, count]) => `${kind} ×${count}`).join(', ')}`;
      return `<b class="noise" style="left:${pct((100 * bin) / noiseBins)};width:${pct(100 / noiseBins)};height:${height}px" title="${escapeHtml(title)}"></b>`;
    })
    .join('');
}

function overlayHtml(items: readonly Item[], axis: TimeAxis, violations: readonly Violation[], events: readonly TraceEvent[]): string {
  const parts = axis.breaks.map((cut) => `<div class="gap" style="left:${pct(cut.percent)}"><span>+${formatTimeMs(cut.hiddenMs)} idle</span></div>`);
  for (const item of items) {
    if (item.event.kind === 'fault' && item.event.fields.kind === 'fault-phase-end') parts.push(`<div class="phaseline" style="left:${pct(item.percent)}" title="faults stop here"></div>`);
  }
  const seen = new Set<number>();
  for (const violation of violations) {
    if (seen.has(violation.step)) continue;
    const event = events[violation.step];
    const percent = axis.percent(event?.timeMs ?? violation.timeMs);
    // Staggered labels, so violations close in time stay legible.
    const top = 2 + (seen.size % 3) * 15;
    seen.add(violation.step);
    parts.push(`<div class="vline" style="left:${pct(percent)}" data-step="${violation.step}"><span style="top:${top}px">✗ ${escapeHtml(violation.invariant)} #${violation.step}</span></div>`);
  }
  return parts.join('');
}

function logHtml(items: readonly Item[], violations: readonly Violation[]): string {
  const byStep = new Map<number, Violation[]>();
  for (const violation of violations) byStep.set(violation.step, [...(byStep.get(violation.step) ?? []), violation]);
  const rows: string[] = [];
  let pending: Item[] = [];
  const flush = (): void => {
    if (pending.length > 0) rows.push(noiseRowHtml(pending));
    pending = [];
  };
  for (const item of items) {
    if (item.noise) {
      pending.push(item);
      continue;
    }
    flush();
    rows.push(logRowHtml(item, byStep.get(item.event.index) ?? []));
  }
  flush();
  return `<table class="log"><tr><th>step</th><th>time</th><th>lane</th><th>event</th></tr>\n${rows.join('\n')}</table>`;
}

function logRowHtml(item: Item, violations: readonly Violation[]): string {
  const event = item.event;
  const classes = [`lane-${item.lane}`];
  if (item.fault !== undefined) classes.push('fault');
  if (violations.length > 0) classes.push('violation-step');
  const fault = item.fault === undefined ? '' : `<span class="tag">fault: ${escapeHtml(item.fault)}</span>`;
  const violated = violations.map((violation) => `<span class="tag" title="${escapeHtml(violation.evidence ?? violation.message)}">violated: ${escapeHtml(violation.invariant)}</span>`).join('');
  return `<tr id="ev-${event.index}" class="${classes.join(' ')}"><td>${event.index}</td><td>${formatTimeMs(event.timeMs)}</td><td>${item.lane}</td><td>${violated}${fault}${clip(describeEvent(event), 600)}</td></tr>`;
}

function noiseRowHtml(items: readonly Item[]): string {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(item.event.kind, (counts.get(item.event.kind) ?? 0) + 1);
  const first = items[0];
  const last = items[items.length - 1];
  assert(first !== undefined && last !== undefined, 'noise run is not empty');
  const span = items.length === 1 ? `1 kernel event #${first.event.index}` : `${items.length} kernel events #${first.event.index}–#${last.event.index}`;
  const summary = `${span}: ${[...counts.entries()].map(([kind, count]) => `${kind} ×${count}`).join(', ')}`;
  if (items.length > noiseListedMax) return `<tr class="noise-row"><td colspan="4">${escapeHtml(summary)}</td></tr>`;
  const listed = items.map((item) => `<div>#${item.event.index} ${formatTimeMs(item.event.timeMs)} ${clip(describeEvent(item.event), 300)}</div>`).join('');
  return `<tr class="noise-row"><td colspan="4"><details><summary>${escapeHtml(summary)}</summary>${listed}</details></td></tr>`;
}

function pct(percent: number): string {
  return `${percent.toFixed(3)}%`;
}
