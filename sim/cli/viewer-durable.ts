// The trace viewer's side-by-side panels: for each session, the chat as the user saw it (the platform's notes in the
// trace: what the user typed and what the platform accepted) beside the durable record (the JSONL transcript as
// synced on the simulated disk, the state.db rows, the outbound rows), read through the simulation objects after the
// run. And the ground-truth facts behind a violation, from the run's ledger when the run result carries one.
import { activeBranchOf, outboundPath, parseTranscript, stateDbPath, transcriptPath } from '../../src/index.ts';
import type { Violation } from '../checkers/index.ts';
import type { RunResult } from '../run/harness.ts';
import { sessionKey } from '../run/plan.ts';
import type { TraceEvent } from '../kernel/trace.ts';
import { formatTimeMs } from './viewer-events.ts';

const textCharsMax = 1_200;
const ledgerFactsMax = 40;
const outboundRowsMax = 200;

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Escaped, and cut to a readable length with the cut stated. */
export function clip(text: string, charsMax = textCharsMax): string {
  if (text.length <= charsMax) return escapeHtml(text);
  return `${escapeHtml(text.slice(0, charsMax))}<span class="cut">… (${text.length - charsMax} more characters)</span>`;
}

export function stepLink(index: number): string {
  return `<a class="step" href="#ev-${index}" data-step="${index}">#${index}</a>`;
}

export function sessionsHtml(result: RunResult): string {
  const sessions = Array.from({ length: result.spec.plan.sessions }, (_, index) => sessionKey(index));
  return sessions.map((session) => sessionHtml(result, session)).join('\n');
}

function sessionHtml(result: RunResult, session: string): string {
  return `<section class="session" data-session="${escapeHtml(session)}">
<h3>${escapeHtml(session)}</h3>
<div class="columns">
<div class="col chat"><h4>chat as the user saw it</h4>${chatHtml(result.sim.trace.events, session)}</div>
<div class="col jsonl"><h4>JSONL transcript (synced to disk)</h4>${transcriptHtml(result, session)}</div>
<div class="col statedb"><h4>state.db messages</h4>${stateDbHtml(result, session)}</div>
</div>
${outboundHtml(result, session)}
</section>`;
}

function chatHtml(events: readonly TraceEvent[], session: string): string {
  const lines: string[] = [];
  for (const event of events) {
    if (event.fields.session !== session) continue;
    const time = `<span class="when">${formatTimeMs(event.timeMs)} ${stepLink(event.index)}</span>`;
    if (event.kind === 'model.user-says') lines.push(`<div class="bubble from-user">${time}<div class="text">${clip(String(event.fields.text))}</div></div>`);
    else if (event.kind === 'model.visible') {
      const kind = String(event.fields.kind);
      lines.push(`<div class="bubble from-bot kind-${escapeHtml(kind)}">${time}<span class="tag">${escapeHtml(kind)}</span><div class="text">${clip(String(event.fields.text))}</div></div>`);
    }
  }
  return lines.length === 0 ? '<p class="empty">nothing typed, nothing shown</p>' : lines.join('\n');
}

function transcriptHtml(result: RunResult, session: string): string {
  const path = transcriptPath(session);
  const synced = result.sim.disk.peekSynced(path);
  const current = result.sim.disk.peek(path);
  if (synced === undefined && current === undefined) return '<p class="empty">no transcript file</p>';
  const parsed = parseTranscript(synced ?? '');
  const onBranch = new Set(activeBranchOf(parsed.entries).map((entry) => entry.id));
  const notes: string[] = [`<p class="meta">${escapeHtml(path)}: ${parsed.entries.length} entries, ${onBranch.size} on the active branch`];
  if (parsed.malformedLines > 0) notes.push(`, <b class="bad">${parsed.malformedLines} malformed lines</b>`);
  if (current !== synced) notes.push(`, ${(current ?? '').length - (synced ?? '').length} bytes not yet synced`);
  notes.push('</p>');
  const backups = result.sim.disk.paths().filter((other) => other.startsWith(`${path}.bak-`));
  if (backups.length > 0) notes.push(`<p class="meta">repair backups: ${backups.map(escapeHtml).join(', ')}</p>`);
  const rows = parsed.entries.map((entry) => {
    const off = onBranch.has(entry.id) ? '' : ' off-branch';
    const tools = (entry.message.toolCalls ?? []).map((call) => `<div class="toolcall">${escapeHtml(call.name)}(${clip(JSON.stringify(call.text))})</div>`).join('');
    return `<div class="entry role-${escapeHtml(entry.message.role)}${off}" title="id ${escapeHtml(entry.id)}, parent ${escapeHtml(entry.parentId ?? 'none')}${off === '' ? '' : ' (off the active branch)'}"><span class="tag">${escapeHtml(entry.message.role)}</span><div class="text">${clip(entry.message.content)}</div>${tools}</div>`;
  });
  return notes.join('') + rows.join('\n');
}

function stateDbHtml(result: RunResult, session: string): string {
  if (!result.sim.sqlite.paths().includes(stateDbPath)) return '<p class="empty">no state.db</p>';
  let rows: Record<string, unknown>[];
  try {
    rows = result.sim.sqlite.inspect(stateDbPath, 'SELECT * FROM messages WHERE session_id = ? ORDER BY timestamp, id', [session]);
  } catch (error) {
    return `<p class="empty">state.db unreadable: ${escapeHtml(String(error))}</p>`;
  }
  if (rows.length === 0) return '<p class="empty">no rows for this session</p>';
  return rows
    .map((row) => {
      const role = String(row.role ?? '?');
      const others = Object.entries(row)
        .filter(([key]) => key !== 'content')
        .map(([key, value]) => `${key}=${String(value)}`)
        .join(', ');
      return `<div class="entry role-${escapeHtml(role)}" title="${escapeHtml(others)}"><span class="tag">${escapeHtml(role)}</span><div class="text">${clip(String(row.content ?? ''))}</div></div>`;
    })
    .join('\n');
}

function outboundHtml(result: RunResult, session: string): string {
  const path = outboundPath(session);
  if (!result.sim.sqlite.paths().includes(path)) return '';
  let rows: Record<string, unknown>[];
  try {
    rows = result.sim.sqlite.inspect(path, 'SELECT * FROM messages_out ORDER BY seq');
  } catch {
    return '';
  }
  const shown = rows.slice(0, outboundRowsMax);
  const columns = Object.keys(shown[0] ?? {});
  const head = columns.map((column) => `<th>${escapeHtml(column)}</th>`).join('');
  const body = shown.map((row) => `<tr>${columns.map((column) => `<td>${clip(String(row[column] ?? ''), 300)}</td>`).join('')}</tr>`).join('\n');
  const more = rows.length > shown.length ? `<p class="meta">… ${rows.length - shown.length} more rows (see the .db artifact)</p>` : '';
  return `<details class="outbound"><summary>outbound.db: ${rows.length} rows</summary><table><tr>${head}</tr>${body}</table>${more}</details>`;
}

/** The run's ground-truth ledger, if the run result (or the model's world) carries one. */
export function ledgerOf(result: RunResult): Record<string, unknown> | undefined {
  const fromResult: unknown = (result as unknown as { ledger?: unknown }).ledger;
  const fromWorld: unknown = (result.model as unknown as { world?: { ledger?: unknown } }).world?.ledger;
  const ledger = fromResult ?? fromWorld;
  return typeof ledger === 'object' && ledger !== null ? (ledger as Record<string, unknown>) : undefined;
}

/** Tokens in a violation message that name facts: quoted texts, markers, delivery and turn ids, run ids. */
function factTokens(message: string): string[] {
  const tokens = new Set<string>();
  for (const match of message.matchAll(/"((?:[^"\\]|\\.)+)"/g)) if (match[1] !== undefined) tokens.add(match[1]);
  for (const match of message.matchAll(/\[m\d+\]/g)) tokens.add(match[0]);
  for (const match of message.matchAll(/\b(?:in:)?(d\d+)\b/g)) if (match[1] !== undefined) tokens.add(`"${match[1]}"`);
  for (const match of message.matchAll(/\brun-\d+\b/g)) tokens.add(`"${match[0]}"`);
  return [...tokens];
}

interface Fact {
  category: string;
  fact: Record<string, unknown>;
}

/** Ledger facts the violation is about: of its session, and naming a token of its message if any fact does. */
export function relevantFacts(ledger: Record<string, unknown>, violation: Violation): { facts: Fact[]; total: number } {
  const session = /agent:main:chat:\d+/.exec(violation.message)?.[0];
  const tokens = factTokens(violation.message);
  const ofSession: Fact[] = [];
  let total = 0;
  for (const [category, value] of Object.entries(ledger)) {
    if (!Array.isArray(value)) continue;
    total += value.length;
    for (const fact of value as unknown[]) {
      if (typeof fact !== 'object' || fact === null) continue;
      const record = fact as Record<string, unknown>;
      if (session !== undefined && record.sessionKey !== undefined && record.sessionKey !== session) continue;
      ofSession.push({ category, fact: record });
    }
  }
  const naming = ofSession.filter(({ fact }) => {
    const json = JSON.stringify(fact);
    return tokens.some((token) => json.includes(token));
  });
  return { facts: (naming.length > 0 ? naming : ofSession).slice(0, ledgerFactsMax), total };
}

export function ledgerHtml(result: RunResult, violation: Violation): string {
  const ledger = ledgerOf(result);
  if (ledger === undefined) return '<p class="meta">This run result carries no ground-truth ledger; the facts are the violation message above and the panels below.</p>';
  const { facts, total } = relevantFacts(ledger, violation);
  if (facts.length === 0) return `<p class="meta">ground-truth ledger: ${total} facts, none about this violation.</p>`;
  const rows = facts.map(({ category, fact }) => {
    const fields = Object.entries(fact)
      .map(([key, value]) => `<span class="k">${escapeHtml(key)}</span>=${clip(JSON.stringify(value) ?? 'undefined', 400)}`)
      .join(' ');
    return `<tr><td class="tag">${escapeHtml(category)}</td><td>${fields}</td></tr>`;
  });
  return `<p class="meta">ground-truth ledger: ${facts.length} of ${total} facts bear on this violation</p><table class="ledger">${rows.join('\n')}</table>`;
}
