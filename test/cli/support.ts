// Shared by the command-line tests: run gatesim in a child process exactly as a user or CI would (node with the tsx
// loader), with output piped.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface CliResult {
  status: number;
  stdout: string;
  stderr: string;
}

/**
 * Run the command line with the caller's environment plus `env`; a variable given as undefined is removed from the
 * child's environment, so that a test can clear what the user's shell exports (NO_COLOR, FORCE_COLOR, CI, ...).
 */
export function cli(args: string[], env: NodeJS.ProcessEnv = {}, timeoutMs = 120_000): CliResult {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env };
  for (const [name, value] of Object.entries(env)) if (value === undefined) delete childEnv[name];
  const result = spawnSync(process.execPath, ['--import', 'tsx', 'sim/cli/main.ts', ...args], { encoding: 'utf8', env: childEnv, timeout: timeoutMs });
  return { status: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
}

export function scratchDir(): string {
  return mkdtempSync(join(tmpdir(), 'gatesim-cli-'));
}

export interface FuzzJson {
  runs: number;
  failures: { scenario: string; seed: string; invariant: string; class: string; steps: number }[];
  firstFailureRun: number | null;
  wallMs: number;
  campaignSeed: number;
}

/**
 * A module to hand to `--load` from a test: written into a fresh folder (an ES module package, as a user's project
 * would be), importing gatesim's public entry from this checkout by its absolute path. Returns the module's path.
 */
export function loadableModule(source: (entry: string) => string): string {
  const dir = scratchDir();
  const entry = new URL('../../lib/index.ts', import.meta.url).pathname;
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'my-gateway', private: true, type: 'module' }));
  writeFileSync(join(dir, 'gatesim.setup.ts'), source(entry));
  return join(dir, 'gatesim.setup.ts');
}

/**
 * The source of a `registerScenario` call for a module handed to `--load`: one session, one user message, no faults
 * (the module must import faultKnobs, fc, modelKnobs, registerScenario, settleMs and userStep from gatesim's entry).
 */
export function oneSessionScenarioSource(name: string): string {
  return `registerScenario({
  name: '${name}',
  description: 'one session, one user message',
  focus: [],
  plan: fc.record({
    sessions: fc.constant(1),
    workload: fc.array(userStep(60_000, 1), { minLength: 1, maxLength: 1 }),
    faults: fc.constant([]),
    faultKnobs: faultKnobs({}),
    model: modelKnobs({}),
    faultPhaseMs: fc.constant(60_000),
    settleMs: fc.constant(settleMs),
  }),
});
`;
}
