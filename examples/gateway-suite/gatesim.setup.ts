// Registers your scenario and invariant with gatesim. Import it from your tests (or list it in vitest's
// setupFiles), and hand it to the command line: `npx gatesim --load ./gatesim.setup.ts list`.
import { registerInvariant, registerScenario } from 'gatesim';
import { noUnpromptedReply } from './invariants.ts';
import { toolServerRestarts } from './scenarios.ts';

registerScenario(toolServerRestarts);
registerInvariant(noUnpromptedReply);
