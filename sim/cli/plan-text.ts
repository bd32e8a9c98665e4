// A plan in a few readable lines, for the failure report: the shrunk plan is the counterexample a reader acts on, so
// it is printed, not only written to report.json. One line each for the shape of the run, the workload, the timed
// and phase-triggered faults, and the knobs that are not at their quiet default.
import type { FaultStep, Plan, WorkloadStep } from '../run/plan.ts';
import { linkPairs } from '../run/plan.ts';
import { formatMs } from './format.ts';

const itemsPerLineMax = 8;

export function planText(plan: Plan): string[] {
  const modes = (plan.queueModes ?? []).slice(0, plan.sessions);
  const queue = modes.some((mode) => mode !== 'collect') ? `; queue ${modes.map((mode, index) => `s${index} ${mode}`).join(', ')}` : '';
  const keyless = plan.keylessPlatform === true ? '; platform ignores idempotency keys' : '';
  // Issue 24's knobs: Hermes' processing mode, and the start-up time of a restart (slow ones only during the faults).
  const processing = plan.processing !== undefined && plan.processing !== 'nanoclaw' ? `; ${plan.processing} processing` : '';
  const startup = plan.startup === undefined ? '' : `; restarts start in ${formatMs(plan.startup.msMin)}-${formatMs(plan.startup.msMax)}${plan.startup.slowPer1000 > 0 ? ` (${plan.startup.slowPer1000}‰ ${formatMs(plan.startup.slowMsMin)}-${formatMs(plan.startup.slowMsMax)})` : ''}`;
  const lines = [`  ${plan.sessions} session(s); faults until ${formatMs(plan.faultPhaseMs)}, then ${formatMs(plan.settleMs)} fault-free${queue}${keyless}${processing}${startup}`];
  lines.push(`  workload: ${listed(plan.workload.map(workloadText))}`);
  // Issue 24 item 2: scheduled tasks (task t<i>), and nanoclaw's two-step fanout when a test switches it on.
  if (plan.tasks !== undefined && plan.tasks.length > 0) {
    const tasks = plan.tasks.map((task, index) => `t${index} (s${task.session}) ${task.everyMs === null ? `once at ${formatMs(task.firstDueMs)}` : `${task.count}x every ${formatMs(task.everyMs)} from ${formatMs(task.firstDueMs)}`}`);
    lines.push(`  tasks:    ${listed(tasks)}${plan.recurrence === 'two-step' ? '; two-step fanout' : ''}`);
    // Issue 48 item 5: the gateway's cron executor runs them outside the chat lane.
    const cron = plan.cron;
    // Issue 48 item 3: their output announced, with the direct send as its fallback.
    if (plan.fallbackDelivery !== undefined) lines.push(`  output:   announced, direct send as fallback (${plan.fallbackDelivery})`);
    if (cron !== undefined) lines.push(`  cron:     ${cron.mode}, timeout ${formatMs(cron.timeoutMs)}, ${cron.attemptsMax} attempt(s), backoff ${cron.backoffMs.map(formatMs).join('/')}`);
  }
  const shapes = shapeText(plan);
  if (shapes.length > 0) lines.push(`  shapes:   ${shapes.join('; ')}`);
  lines.push(`  faults:   ${listed(plan.faults.map(faultText))}`);
  const knobs = knobText(plan);
  if (knobs.length > 0) lines.push(`  knobs:    ${knobs.join(', ')}`);
  return lines;
}

function listed(items: string[]): string {
  if (items.length === 0) return 'none';
  const shown = items.slice(0, itemsPerLineMax).join('; ');
  return items.length > itemsPerLineMax ? `${shown}; ... ${items.length - itemsPerLineMax} more` : shown;
}

function workloadText(step: WorkloadStep): string {
  const at = formatMs(step.atMs);
  switch (step.kind) {
    case 'user':
      return `${at} user ${JSON.stringify(clipText(step.text))} (s${step.session})`;
    case 'exec':
      return `${at} exec ${formatMs(step.durationMs)} exit ${step.exitCode} (s${step.session})`;
    case 'clear':
      return `${at} /clear (s${step.session})`;
    case 'config-bump':
      return `${at} config bump`;
    case 'dashboard':
      return `${at} dashboard ${JSON.stringify(clipText(step.text))} (s${step.session})`;
  }
}

function faultText(fault: FaultStep): string {
  const link = (index: number): string => (linkPairs[index] ?? ['?', '?']).join('<->');
  switch (fault.kind) {
    case 'kill':
      return `${formatMs(fault.atMs)} kill ${fault.process} (restart +${formatMs(fault.restartAfterMs)})`;
    case 'power-loss':
      return `${formatMs(fault.atMs)} power loss (boot +${formatMs(fault.restartAfterMs)})`;
    case 'power-loss-at-phase':
      return `power loss at ${fault.phase} #${fault.nth + 1} +${formatMs(fault.delayMs)} (boot +${formatMs(fault.restartAfterMs)})`;
    case 'power-loss-at-append':
      return `power loss after transcript append #${fault.nth + 1} (boot +${formatMs(fault.restartAfterMs)})`;
    case 'stall':
      return `${formatMs(fault.atMs)} stall ${fault.process} for ${formatMs(fault.durationMs)}`;
    case 'model-outage':
      return `${formatMs(fault.atMs)} LLM outage for ${formatMs(fault.durationMs)}`;
    case 'kill-at-phase':
      return `kill ${fault.process} at ${fault.phase} #${fault.nth + 1} +${formatMs(fault.delayMs)} (restart +${formatMs(fault.restartAfterMs)})`;
    case 'partition':
      return `${formatMs(fault.atMs)} partition ${link(fault.link)} for ${formatMs(fault.healAfterMs)}`;
    case 'hold':
      return `${formatMs(fault.atMs)} hold ${link(fault.link)} for ${formatMs(fault.releaseAfterMs)}`;
    case 'reset':
      return `${formatMs(fault.atMs)} reset ${link(fault.link)}`;
    case 'reset-at-phase':
      return `reset ${link(fault.link)} at ${fault.phase} #${fault.nth + 1} +${formatMs(fault.delayMs)}`;
    case 'client-drop':
      return `${formatMs(fault.atMs)} drop the client's WebSocket`;
    case 'client-drop-at':
      return `drop the client's WebSocket at ${fault.point} #${fault.nth + 1} +${formatMs(fault.delayMs)}`;
  }
}

/** The shapes a run switched on (chaos draws them per run; the focused scenarios have their own), as in plan.ts. */
function shapeText(plan: Plan): string[] {
  const out: string[] = [];
  if (plan.clients !== undefined) {
    const client = plan.clients;
    const options = [client.dedupe === undefined ? '' : `dedupe ${client.dedupe}`, client.replay === undefined ? '' : `replay ${client.replay}`, client.retryKey === undefined ? '' : `retry key ${client.retryKey}`].filter((text) => text.length > 0);
    out.push(`WebChat client on ${client.sessions.map((session) => `s${session}`).join(', ')}${options.length > 0 ? ` (${options.join(', ')})` : ''}`);
  }
  if (plan.compaction !== undefined) out.push(`compaction past ${plan.compaction.contextTokensMax} tokens, keeping ${plan.compaction.keepRecentTokens}${plan.compaction.cut === undefined ? '' : ` (cut ${plan.compaction.cut})`}`);
  if (plan.promptEnvelope !== undefined) out.push(`prompt envelope ${plan.promptEnvelope}`);
  if (plan.heartbeatRun !== undefined) out.push(`heartbeat runs ${plan.heartbeatRun.mode} (timeout ${formatMs(plan.heartbeatRun.timeoutMs)}, ${plan.heartbeatRun.fallbacks} fallback(s), retry after ${formatMs(plan.heartbeatRun.retryMs)})`);
  if (plan.contextAnswers === true) out.push('answers name their context');
  if (plan.platform !== undefined) {
    const platform = plan.platform;
    const refusals = [
      platform.rateLimitPer1000 > 0 ? `flood control ${platform.rateLimitPer1000}‰ (retry after <= ${formatMs(platform.retryAfterMsMax)})` : '',
      platform.notFound.length > 0 ? `chat not found ${platform.notFound.length}x` : '',
      platform.notReadyMsMax > 0 ? `listener not ready <= ${formatMs(platform.notReadyMsMax)}` : '',
      platform.ambiguousPer1000 > 0 ? `ambiguous answers ${platform.ambiguousPer1000}‰` : '',
    ].filter((text) => text.length > 0);
    out.push(`platform limit ${platform.textLimit} chars, long replies ${platform.longReplyPer1000}‰${refusals.length > 0 ? `, ${refusals.join(', ')}` : ''}`);
  }
  if (plan.agentCacheCoherence !== undefined) out.push(`agent cache coherence ${plan.agentCacheCoherence}`);
  if (plan.lateResponses !== undefined && plan.lateResponses.length > 0) out.push(`late tool responses ${plan.lateResponses.map((burst) => `${burst.count}x s${burst.session} at ${formatMs(burst.atMs)}`).join(', ')}`);
  if (plan.pollOrder !== undefined) out.push(`poll order ${plan.pollOrder}`);
  if (plan.writeStalls !== undefined) out.push(`stalled writes ${plan.writeStalls.per1000}‰, ${formatMs(plan.writeStalls.msMin)} to ${formatMs(plan.writeStalls.msMax)}`);
  if (plan.toolRowIds !== undefined) out.push(`tool row ids ${plan.toolRowIds}`);
  if (plan.blockStreaming !== undefined) out.push(`block streaming ${plan.blockStreaming}`);
  if (plan.secondWriters !== undefined) {
    const writers = plan.secondWriters;
    out.push(`delivery mirror ${writers.deliveryMirror}, gateway append ${writers.gatewayAppend}${writers.lockReclaim === undefined ? '' : `, lock reclaim ${writers.lockReclaim}`}`);
  }
  return out;
}

function knobText(plan: Plan): string[] {
  const out: string[] = [];
  for (const [name, value] of Object.entries(plan.faultKnobs)) {
    if (name === 'delayMsMax') out.push(`delay <= ${formatMs(value as number)}`);
    else if (value === true) out.push(name);
    else if (name === 'modelErrorStreakMax') {
      if ((value as number) > 0) out.push(`model error streaks <= ${value as number}`);
    } else if (typeof value === 'number' && value > 0) out.push(`${name.replace(/Per1000$/, '')} ${value}‰`);
  }
  for (const [name, value] of Object.entries(plan.model)) {
    if (name === 'agentCacheSize') out.push(`agent cache ${value}`);
    else if (name === 'toolCallsMax') out.push(`tool calls <= ${value}`);
    else if (value > 0) out.push(`${name.replace(/Per1000$/, '')} ${value}‰`);
  }
  return out;
}

function clipText(text: string): string {
  return text.length <= 24 ? text : `${text.slice(0, 21)}...`;
}
