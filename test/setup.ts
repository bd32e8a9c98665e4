// Every test file starts from the same environment whatever the user's shell exports: the variables that change
// gatesim's output (colour, GATESIM_DEBUG) are cleared before any module of gatesim is imported, so tests that want
// one set it themselves (test/hermetic-env.ts lists them). Property tests run from a fixed seed so every run is
// reproducible; set GATESIM_FC_SEED (not FC_SEED, which a shell may export for another project) to explore others.
import fc from 'fast-check';
import { clearShellVariables } from './hermetic-env.ts';

const fcSeedDefault = 20_261_121;

function fcSeed(): number {
  const text = process.env.GATESIM_FC_SEED;
  if (text === undefined || text === '') return fcSeedDefault;
  const seed = Number(text);
  if (!Number.isSafeInteger(seed)) throw new Error(`GATESIM_FC_SEED must be an integer, not ${JSON.stringify(text)}`);
  return seed;
}

clearShellVariables(process.env);
fc.configureGlobal({ seed: fcSeed() });
