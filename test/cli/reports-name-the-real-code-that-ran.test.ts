// Every report names the code under test: gatesim's model alone, or the real code that ran in place of its parts; a
// violation of a run with real code says whether docs/MODEL.md documents it as a finding about that code, and which
// section, or that it is new. The matching table's sections are headings of docs/MODEL.md.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Violation } from '../../sim/checkers/index.ts';
import type { TraceEvent } from '../../sim/kernel/trace.ts';
import { reproduce } from '../../lib/index.ts';
import { failureJson } from '../../sim/cli/fuzz-command.ts';
import { codeUnderTest, documentedFindings, matchFinding } from '../../sim/cli/real-code.ts';
import { openclawMissing } from '../real/openclaw-support.ts';
import { cli, scratchDir } from './support.ts';

const violation = (invariant: string, message: string): Violation => ({ invariant, message, step: 3, timeMs: 10, class: 'correctness' });
const powerLoss: TraceEvent[] = [{ index: 0, timeMs: 5, kind: 'fault', fields: { kind: 'power-loss' } } as unknown as TraceEvent];

describe('the documented findings about real code', () => {
  it('name sections that docs/MODEL.md has', () => {
    const headings = readFileSync(new URL('../../docs/MODEL.md', import.meta.url), 'utf8')
      .split('\n')
      .filter((line) => line.startsWith('#'))
      .map((line) => line.replace(/^#+\s*/, ''));
    for (const finding of documentedFindings) expect(headings).toContain(finding.section);
  });

  it('match a violation only with the release, part, invariant and evidence the finding names', () => {
    const withNodeEvents = codeUnderTest({ openclaw: { release: '2026.4.24', parts: ['system-events', 'heartbeat-wake', 'node-events'] }, sessionManager: 'model', custom: [] }, []);
    const doubled = violation('no-double-ingestion', 'agent:main:chat:0: the start of command run-3 is in 2 user rows of state.db');
    expect(matchFinding(doubled, withNodeEvents, [])).toMatchObject({ status: 'documented', section: 'Node exec events, real' });
    // A chat message ingested twice is not the exec-event finding, nor is the same doubling without the release's part.
    expect(matchFinding(violation('no-double-ingestion', 'agent:main:chat:0: message [m1] is in 2 user rows of state.db'), withNodeEvents, [])).toEqual({ status: 'new' });
    const queueOnly = codeUnderTest({ openclaw: { release: '2026.4.24', parts: ['system-events', 'heartbeat-wake'] }, sessionManager: 'model', custom: [] }, []);
    expect(matchFinding(doubled, queueOnly, [])).toEqual({ status: 'new' });
    const pi = codeUnderTest({ sessionManager: 'pi', custom: [] }, []);
    const lost = violation('no-lost-user-message', 'agent:main:chat:0: [m0] never reached the JSONL');
    expect(matchFinding(lost, pi, powerLoss)).toMatchObject({ status: 'documented', section: "The model's SessionManager and the real one" });
    expect(matchFinding(lost, pi, [])).toEqual({ status: 'new' });
  });

  it("match a finding of a release's setting around its parts only where the run applied it", () => {
    // 2026.7.1's chat.send dedupe in memory: a WebChat message taken twice across a gateway restart, and what follows.
    const bare = codeUnderTest({ openclaw: { release: '2026.7.1', parts: ['system-events', 'heartbeat-wake', 'node-events'] }, sessionManager: 'model', custom: [] }, []);
    const around = bare.openclawAround ?? { revision: 1, applied: [], defences: [] };
    const applied = { ...bare, openclawAround: { ...around, applied: [...around.applied, { id: 'chat-dedupe-in-memory', name: 'chat.send dedupe in memory', variant: '' }] } };
    const restart = [{ index: 0, timeMs: 5, kind: 'proc.restart', fields: { name: 'gateway', incarnation: 2 } } as unknown as TraceEvent];
    const twice = violation('no-double-ingestion', 'agent:main:chat:0: message [m7] (delivery wc-b602169c15e2) is in 2 user rows of state.db');
    const stored = violation('one-assistant-row-per-visible-reply', 'agent:main:chat:0: state.db holds the closing text of the answer to [m7] 2 times');
    const all = [twice, stored];
    expect(matchFinding(twice, applied, restart, all)).toMatchObject({ status: 'documented', section: 'Around the real parts' });
    expect(matchFinding(stored, applied, restart, all)).toMatchObject({ status: 'documented', section: 'Around the real parts' });
    // Not without the setting applied, without a gateway restart, for a platform's delivery, or for another message.
    expect(matchFinding(twice, bare, restart, all)).toEqual({ status: 'new' });
    expect(matchFinding(twice, applied, [], all)).toEqual({ status: 'new' });
    const platform = violation('no-double-ingestion', 'agent:main:chat:0: message [m7] (delivery tg-1) is in 2 user rows of state.db');
    expect(matchFinding(stored, applied, restart, [platform, stored])).toEqual({ status: 'new' });
    const other = violation('one-assistant-row-per-visible-reply', 'agent:main:chat:0: state.db holds the closing text of the answer to [m8] 2 times');
    expect(matchFinding(other, applied, restart, [...all, other])).toEqual({ status: 'new' });
  });

  it('say in words what ran, and that nothing real ran in a model run', () => {
    expect(codeUnderTest({ sessionManager: 'model', custom: [] }, []).text).toBe("gatesim's model only, no real code");
    const text = codeUnderTest({ openclaw: { release: '2026.7.1', parts: ['node-events'] }, sessionManager: 'pi', custom: ['runner'] }, ['./my-setup.ts']).text;
    expect(text).toContain("OpenClaw 2026.7.1's node-events");
    expect(text).toContain("pi's SessionManager");
    expect(text).toContain('your own component for the runner');
    expect(text).toContain('loaded modules: ./my-setup.ts');
  });
});

describe('a report of a model run', () => {
  it('says only the model ran, in text and JSON, and marks no finding', () => {
    const text = cli(['run', 'send-mid-turn', '--seed', '1', '--bugs', 'send-flag'], { NO_COLOR: '1' });
    expect(text.stdout).toContain("code under test: gatesim's model only, no real code");
    const json = cli(['run', 'send-mid-turn', '--seed', '1', '--bugs', 'send-flag', '--json']);
    const parsed = JSON.parse(json.stdout) as { realCode: { openclaw: unknown; sessionManager: string }; violations: Record<string, unknown>[] };
    expect(parsed.realCode).toMatchObject({ openclaw: null, sessionManager: 'model', customComponents: [], loadedModules: [] });
    expect(parsed.violations.length).toBeGreaterThan(0);
    for (const found of parsed.violations) expect(found).not.toHaveProperty('finding');
  });

  it('run --json --artifacts says where the artifacts went, and trace.html gives one step count, the JSON one', () => {
    const dir = join(scratchDir(), 'out');
    const json = cli(['run', 'send-mid-turn', '--seed', '1', '--bugs', 'send-flag', '--json', '--artifacts', dir]);
    const parsed = JSON.parse(json.stdout) as { steps: number; artifacts: { dir: string; files: string[] } };
    expect(parsed.artifacts.dir).toBe(dir);
    expect([...parsed.artifacts.files].sort()).toEqual(expect.arrayContaining(['report.json', 'trace.html', 'trace.jsonl']));
    const html = readFileSync(join(dir, 'trace.html'), 'utf8');
    expect(html).not.toContain('scheduler steps');
    expect(html).toContain(`${parsed.steps} steps (trace events #0-#${parsed.steps - 1})`);
    expect(html).toContain('code under test: gatesim&#39;s model only, no real code');
  });
});

// docs/MODEL.md "Node exec events, real": seed 000's finish doubled across a gateway restart, and a start doubled.
const documentedSeed = 'gs2.exec-replay@oc-2026_4_24~se+hw+ne.none.11.r.0_1_0-9263af.e3b72d85';

describe.skipIf(openclawMissing('report of a real OpenClaw run'))('a report of a run with OpenClaw 2026.4.24', () => {
  it('names the release and its parts in the JSON, report.json and trace.html, and the documented finding', () => {
    const dir = join(scratchDir(), 'artifacts');
    const result = cli(['repro', documentedSeed, '--json', '--artifacts', dir], {}, 300_000);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('gatesim: loading OpenClaw 2026.4.24 (system-events, heartbeat-wake, node-events)');
    const parsed = JSON.parse(result.stdout) as { realCode: { openclaw: { release: string; parts: string[] } }; violations: { finding: { status: string; section?: string } }[]; artifacts: { dir: string; files: string[] } };
    expect(parsed.realCode.openclaw).toEqual({ release: '2026.4.24', parts: ['system-events', 'heartbeat-wake', 'node-events'] });
    expect(parsed.violations.map((found) => found.finding)).toContainEqual({ status: 'documented', section: 'Node exec events, real', summary: expect.any(String) });
    expect(parsed.artifacts.dir).toBe(dir);
    expect(parsed.artifacts.files).toContain('trace.html');
    const report = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as { realCode: { text: string } };
    expect(report.realCode.text).toContain("OpenClaw 2026.4.24's system-events, heartbeat-wake, node-events");
    const html = readFileSync(join(dir, 'trace.html'), 'utf8');
    expect(html).toContain('code under test: real code: OpenClaw 2026.4.24&#39;s system-events, heartbeat-wake, node-events');
    expect(html).toContain('docs/MODEL.md &#34;Node exec events, real&#34;');
  }, 300_000);

  it("names them in a fuzz failure's JSON too, with the finding of the failing invariant", async () => {
    const { result, seed } = await reproduce(documentedSeed);
    const json = failureJson({ scenario: 'exec-replay', seed, invariant: 'no-double-ingestion', class: 'correctness', steps: 0, violations: result.violations, run: 1, shrinkRuns: 0, shrinkComplete: true, shrinkRunsMax: 300, result });
    result.sim.dispose();
    expect(json.realCode).toMatchObject({ openclaw: { release: '2026.4.24', parts: ['system-events', 'heartbeat-wake', 'node-events'] } });
    expect(json.finding).toMatchObject({ status: 'documented', section: 'Node exec events, real' });
  }, 300_000);
});
