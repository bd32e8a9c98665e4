// The trace viewer page as text, without a browser: every artifacts directory gets trace.html; run text is escaped;
// only the page's own script may run (its hash is in the page's policy); the violation's ledger facts are shown when
// the run result carries a ledger and the page still works without one; and a run of tens of thousands of events
// keeps every model note and fault but collapses kernel events into a bounded number of marks and log rows. The
// violation is highlighted at its step (a kernel event there, such as a commit, is drawn and listed like a note).
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeArtifacts } from '../../sim/cli/report.ts';
import { traceViewerHtml } from '../../sim/cli/viewer.ts';
import { contentSecurityPolicy, viewerScript, viewerScriptSha256 } from '../../sim/cli/viewer-assets.ts';
import { escapeHtml } from '../../sim/cli/viewer-durable.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import type { TraceEvent } from '../../sim/kernel/trace.ts';
import type { RunResult } from '../../sim/run/harness.ts';
import { failingRunWithFaults, hostileText, runWithHostileText } from './viewer-support.ts';

const sql = await loadSqlJs();
let failing: RunResult;
let hostile: RunResult;

beforeAll(async () => {
  failing = await failingRunWithFaults(sql);
  hostile = await runWithHostileText(sql);
});

afterAll(() => {
  failing.sim.dispose();
  hostile.sim.dispose();
});

/** The run result seen with another ledger, or none. */
function withLedger(result: RunResult, ledger: unknown): RunResult {
  return { ...result, ledger } as unknown as RunResult;
}

describe('trace.html', () => {
  it('is written into every artifacts directory, beside trace.jsonl', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gatesim-viewer-'));
    try {
      const written = writeArtifacts(dir, 'seed-x', failing);
      expect(written).toContain(`${dir}/trace.html`);
      const html = readFileSync(join(dir, 'trace.html'), 'utf8');
      expect(html.startsWith('<!doctype html>')).toBe(true);
      expect(html).toContain('seed-x');
      expect(existsSync(join(dir, 'trace.jsonl'))).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('escapes run text: the hostile user message appears only escaped', () => {
    const html = traceViewerHtml(hostile, { seed: '<b>seed</b>' });
    expect(html).not.toContain('<script>window.__pwned');
    expect(html).not.toContain('<img');
    expect(html).not.toContain('<b>seed</b>');
    expect(html).toContain('&#60;script&#62;window.__pwned = 1&#60;/script&#62;');
    expect(html.split('<script').length - 1).toBe(1);
    expect(hostileText).toContain('&amp;');
    expect(html).toContain('&#38;amp;');
  });

  it('lets only its own script run: the policy names the script by its hash and allows no fetch', () => {
    expect(createHash('sha256').update(viewerScript).digest('base64')).toBe(viewerScriptSha256);
    expect(contentSecurityPolicy).toContain("default-src 'none'");
    expect(contentSecurityPolicy).not.toMatch(/script-src[^;]*unsafe-inline/);
    const html = traceViewerHtml(failing);
    expect(html).toContain(`<script>${viewerScript}</script>`);
    expect(html).not.toMatch(/\b(?:src|href)="(?!#)/);
  });

  it('shows the ledger facts that bear on the violation when the run carries a ledger, and works without one', () => {
    const violation = failing.violations[0];
    if (violation === undefined) throw new Error('no violation');
    const quoted = /"([^"]+)"/.exec(violation.message)?.[1];
    if (quoted === undefined) throw new Error(`no quoted text in ${violation.message}`);
    const ledger = {
      userMessages: [
        { sessionKey: 'agent:main:chat:0', deliveryId: 'd0', text: 'hello [m0]', marker: '[m0]', sentAtMs: 500 },
        { sessionKey: 'agent:main:chat:0', deliveryId: 'd7', text: 'unrelated [m7]', marker: '[m7]', sentAtMs: 900 },
      ],
      answers: [{ index: 0, request: 0, sessionKey: 'agent:main:chat:0', prompt: 'hello [m0]', toolCalls: [], result: `<message to="user">${quoted}</message>`, returnedAtMs: 700 }],
      shown: [],
    };
    const withFacts = traceViewerHtml(withLedger(failing, ledger));
    expect(withFacts).toContain('ground-truth ledger');
    expect(withFacts).toContain('&#60;message to=');
    expect(withFacts).toContain('answers');
    expect(withFacts).not.toContain('unrelated [m7]');
    const without = traceViewerHtml(withLedger(failing, undefined));
    expect(without).toContain('carries no ground-truth ledger');
    expect(without).toContain(violation.message.replace(/["']/g, (c) => `&#${c.charCodeAt(0)};`));
  });

  it('highlights the violation at its step, where its evidence became true, and says what was found there', () => {
    const violation = failing.violations[0];
    if (violation === undefined) throw new Error('no violation');
    expect(violation.evidence).toBeDefined();
    const html = traceViewerHtml(failing);
    expect(html).toMatch(new RegExp(`<tr id="ev-${violation.step}" class="[^"]*violation-step`));
    expect(html).toContain(`<div class="vline" style="left:`);
    expect(html).toContain(`data-step="${violation.step}"><span`);
    expect(html).toMatch(new RegExp(`<i class="[^"]*at-violation[^"]*" style="[^"]*" data-i="${violation.step}"`));
    expect(html).toContain(escapeHtml(violation.evidence ?? ''));
  });

  it('keeps every model note and fault of a 60 000-event run and collapses its kernel events', () => {
    const events: TraceEvent[] = [...failing.sim.trace.events];
    const endMs = failing.simTimeMs;
    for (let i = 0; i < 60_000; i++) {
      const kind = i % 1_000 === 0 ? 'proc.kill' : i % 10 === 0 ? 'model.heartbeat-skip' : 'sql.write';
      const fields = kind === 'proc.kill' ? { name: 'runner', incarnation: i } : { process: 'runner', path: '/data/state.db', sql: 'INSERT', changes: 1 };
      events.push({ index: events.length, timeMs: endMs + i * 7, kind, fields });
    }
    const big = { ...failing, simTimeMs: endMs + 60_000 * 7, sim: { ...failing.sim, trace: { events } } } as unknown as RunResult;
    const html = traceViewerHtml(big);
    const before = traceViewerHtml(failing);
    const count = (text: string, what: string): number => text.split(what).length - 1;
    const addedNotes = 6_000 - 60;
    const addedKills = 60;
    // One mark per note, two per fault (its own lane and the faults lane), none per kernel event.
    expect(count(html, '<i class=')).toBe(count(before, '<i class=') + addedNotes + 2 * addedKills);
    expect(count(html, '<tr id="ev-')).toBe(count(before, '<tr id="ev-') + addedNotes + addedKills);
    expect(count(html, 'SIGKILL runner')).toBeGreaterThanOrEqual(2 * addedKills);
    expect(count(html, '<b class="noise"')).toBeLessThanOrEqual(9 * 600);
    expect(html.length).toBeLessThan(12_000_000);
  });
});
