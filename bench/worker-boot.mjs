// Worker threads do not inherit tsx's loader from the command line, so a benchmark worker starts here: register
// tsx for this thread, then load the TypeScript worker (bench/worker.ts).
import { register } from 'tsx/esm/api';

register();
await import('./worker.ts');
