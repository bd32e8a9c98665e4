#!/usr/bin/env node
// The `gatesim` binary of the installed package: the compiled command line (`npm pack` builds dist/ first). In this
// repository, run the sources instead: `npm run sim -- <command>`.
import '../dist/sim/cli/main.js';
