// The environment variables of the user's shell that change what gatesim prints or how a test runs: colour
// (NO_COLOR, FORCE_COLOR), the internal error's stack (GATESIM_DEBUG) and fast-check's seed (FC_SEED, which the
// suite never reads: see test/setup.ts). test/setup.ts clears them in every test worker, so in-process tests see
// none; a test that spawns gatesim or a fixture passes childEnv(), and sets what it depends on explicitly.
export const shellVariables = ['NO_COLOR', 'FORCE_COLOR', 'GATESIM_DEBUG', 'FC_SEED'] as const;

/** Delete the shell variables above from `env` (process.env in test/setup.ts). */
export function clearShellVariables(env: NodeJS.ProcessEnv): void {
  for (const name of shellVariables) delete env[name];
}

/** The environment for a child process: this one's without the shell variables above, plus `set`. */
export function childEnv(set: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env = { ...process.env };
  clearShellVariables(env);
  return { ...env, ...set };
}
