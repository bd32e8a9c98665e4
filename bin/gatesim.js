#!/usr/bin/env node
// The `gatesim` binary of the installed package: the compiled command line. The build writes dist/: `npm pack` runs it
// (prepack), and so does a git install (npm runs `prepare` in the clone before it packs it). In this repository, run
// the sources instead: `npm run sim -- <command>`. A copy without dist/ (a git install with scripts ignored, a clone
// never built) gets one line that says how to build it, not a stack trace.
import { fileURLToPath } from 'node:url';

const main = new URL('../dist/sim/cli/main.js', import.meta.url);
try {
  await import(main.href);
} catch (error) {
  const missing = error?.code === 'ERR_MODULE_NOT_FOUND' && String(error.message).includes(fileURLToPath(main));
  if (!missing) throw error;
  const root = fileURLToPath(new URL('..', import.meta.url));
  process.stderr.write(`gatesim: ${root} has no dist/ (this copy was never built): install gatesim from a tarball, or from git with install scripts allowed (npm builds it then); in a clone, run npm run build\n`);
  process.exitCode = 2;
}
