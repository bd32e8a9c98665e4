// The SQLite era's handleNodeEvent in a real run (issue 45 item 3): `--openclaw 2026.8.1:se,hw,ne` and
// `2026.9.6:se,hw,ne` on exec-replay seed 1, under Node 24 (test/real/openclaw-node24.ts). The release reads its session
// entry from its agent DB on the simulated node:sqlite (created by its own code on the simulated disk at the first
// event), authorizes each exec event against its own NodeRegistry (a paired node), and enqueues what it takes into its
// own queue after its first await (the adapter holds the kernel's settle while it handles an event, then adopts what
// it queued). Checked: a pass with no escape; events the release queued and events it refused as unmatched (a finish
// that crossed a reconnect); the agent DB a SQLite file on the disk; the same trace hash twice in one process. And
// `run --artifacts` (the command re-runs itself under Node 24) writes the agent DB beside the other .db files as one
// standalone file, the WAL's commits applied (sim/checkers/agent-db.ts), which another engine opens.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { agentDatabaseImage, loadAgentDbReader, readAgentDbRows } from '../../sim/checkers/agent-db.ts';
import { cli, scratchDir } from '../cli/support.ts';
import { findScenario } from '../../scenarios/index.ts';
import { openclawSqliteEraReleases } from '../../sim/real/openclaw/index.ts';
import { generateSpec } from '../../sim/run/generate.ts';
import { node24Here, rerunUnderNode24, sqliteEraMissing, underNode24 } from './openclaw-node24.ts';
import { runTwice } from './openclaw-runs.ts';

const missing = sqliteEraMissing();
const agentDatabase = '/home/openclaw/.openclaw/agents/main/agent/openclaw-agent.sqlite';

describe.skipIf(missing || !node24Here)(`${underNode24} the SQLite era's node events on the simulated agent DB`, () => {
  it('run exec-replay seed 1 with se, hw and ne: the release takes and refuses events, its agent DB on the disk', async () => {
    const scenario = findScenario('exec-replay');
    if (scenario === undefined) throw new Error('exec-replay is built in');
    for (const release of openclawSqliteEraReleases) {
      const label = `${release} exec-replay seed 1`;
      const hash = await runTwice(generateSpec(scenario, [], 1, undefined), release, ['system-events', 'heartbeat-wake', 'node-events'], label, (result) => {
        expect(result.verdict, label).toBe('pass');
        const notes = result.sim.trace.events.filter((event) => event.kind === 'model.system-event').map((event) => event.fields);
        expect(notes.length, label).toBeGreaterThan(10);
        expect(notes.every((note) => note.release === true), label).toBe(true);
        // Taken by the release (the adapter adopted what it queued after its await) ...
        expect(notes.filter((note) => note.queued === true).length, label).toBeGreaterThanOrEqual(6);
        // ... and refused by its NodeRegistry: run-0's finish came over the connection after a reset.
        expect(notes.some((note) => note.run === 'run-0' && note.event === 'exec.finished' && note.unmatched === true), label).toBe(true);
        const header = result.sim.disk.peekBytes(agentDatabase);
        expect(header, `${label}: the agent DB is on the simulated disk`).toBeDefined();
        expect(Buffer.from(header?.subarray(0, 16) ?? []).toString('latin1'), label).toBe('SQLite format 3\0');
      });
      process.stderr.write(`${label} (se, hw, ne): trace hash ${hash}\n`);
    }
  }, 600_000);
});

describe.skipIf(missing)("the SQLite era's agent DB in a run's artifacts", () => {
  it('run --artifacts writes it beside the .db files, one standalone file that opens alone', async () => {
    const dir = join(scratchDir(), 'artifacts');
    const run = cli(['run', 'exec-replay', '--seed', '1', '--openclaw', '2026.9.6:se,hw,ne', '--artifacts', dir], {}, 600_000);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain('traceHash 9cdc1eead538443c');
    const image = new Uint8Array(readFileSync(join(dir, 'db', agentDatabase)));
    expect(readFileSync(join(dir, 'db/data/state.db')).length).toBeGreaterThan(0);
    expect(Buffer.from(image.subarray(0, 16)).toString('latin1')).toBe('SQLite format 3\0');
    expect([image[18], image[19]]).toEqual([1, 1]);
    // The image is already whole: applying no WAL to it changes nothing.
    expect(agentDatabaseImage(image, undefined)).toEqual(image);
    await loadAgentDbReader();
    // No part writes the model's sessions or transcripts into it (docs/MODEL.md: the release's exec branch reads only
    // the key it derives); its schema is there.
    expect(readAgentDbRows(image)).toEqual({ sessions: [], transcript: [] });
  }, 660_000);
});

describe.skipIf(missing || node24Here)("the SQLite era's node events on this Node", () => {
  it("run their run blocks under the workspace's Node 24", () => rerunUnderNode24(import.meta.url, 900_000), 960_000);
});
