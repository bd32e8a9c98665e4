// The OpenClaw installation a real gateway part finds on the simulated machine (docs/MODEL.md, "node exec events"):
// the config file and the main agent's session store, as `openclaw onboard` and the gateway would have left them,
// read where the releases read them (2026.4.24 `loadConfig` in dist/io-*.js: `~/.openclaw/openclaw.json`, JSON5;
// `loadSessionEntry` in dist/session-utils-*.js: `~/.openclaw/agents/<agentId>/sessions/sessions.json`). They are
// installed files, not writes of the run (SimulatedDirectories.installed), so they add nothing to the trace.
//
// The config says only what the model's gateway assumes: exec completions notify (`tools.exec.notifyOnExit`, also the
// default). The store has one entry per chat session of the run, keyed by the model's session keys
// (`agent:main:chat:<n>`), with a session id derived from the key and an update time at the simulation's epoch, so
// `loadSessionEntry` finds each session under the key the model uses and answers that key as canonical.
import { simEpochMs } from '../../../src/pi-format.ts';
import { assert } from '../../kernel/assert.ts';
import { openclawDefaultHome, SimulatedDirectories } from './binding.ts';

export const openclawConfigPath = `${openclawDefaultHome}/.openclaw/openclaw.json`;
export const openclawSessionStorePath = `${openclawDefaultHome}/.openclaw/agents/main/sessions/sessions.json`;

/**
 * The config. With the SQLite era's mirror append (`sqliteWrites`: the release writes session rows and transcript
 * events into its agent DB) the deployment also sets two things its writers reach (docs/MODEL.md, "The mirror append
 * in the SQLite era"): session maintenance `warn` (the release plans pruning and capping after an entry write in a
 * worker thread, which the simulation does not run; with gatesim's few sessions and minutes-long runs `enforce` would
 * remove nothing) and a silent file log at a fixed path (the default log directory, `/tmp/openclaw`, is admitted
 * only after an ownership check through descriptors the machine does not simulate, and the log is no state the
 * checkers read). Without it the config is as before, so those runs keep their trace hashes.
 */
export function openclawConfigText(options: { sqliteWrites?: boolean } = {}): string {
  const config = options.sqliteWrites === true ? { tools: { exec: { notifyOnExit: true } }, session: { maintenance: { mode: 'warn' } }, logging: { level: 'silent', file: openclawLogPath } } : { tools: { exec: { notifyOnExit: true } } };
  return `${JSON.stringify(config, null, 2)}\n`;
}

/** Where the deployment's (silent) file log would be (openclawConfigText). */
export const openclawLogPath = `${openclawDefaultHome}/.openclaw/logs/openclaw.log`;

export function openclawSessionStoreText(sessions: readonly string[]): string {
  const store = Object.fromEntries(sessions.map((key, index) => [key, { sessionId: `gatesim-session-${index}`, updatedAt: simEpochMs }]));
  return `${JSON.stringify(store, null, 2)}\n`;
}

/** The simulated machine's directories, with nothing of OpenClaw installed yet (one per run, shared by its incarnations). */
export function openclawHome(): SimulatedDirectories {
  return new SimulatedDirectories([openclawDefaultHome]);
}

/**
 * Install the config and the session store of the gateway's sessions (the same at every incarnation of one run: the
 * sessions are the run's). Installed files are what the machine had before the run, so a second call must agree.
 */
export function installOpenclaw(home: SimulatedDirectories, sessions: readonly string[], config: string = openclawConfigText()): void {
  const files: [string, string][] = [
    [openclawConfigPath, config],
    [openclawSessionStorePath, openclawSessionStoreText(sessions)],
  ];
  for (const [path, text] of files) {
    const installed = home.installed.get(path);
    assert(installed === undefined || installed === text, `${path} was installed with other contents`);
    home.installed.set(path, text);
  }
}
