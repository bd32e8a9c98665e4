// The entry of a fuzz worker thread when gatesim runs from its TypeScript sources. Node 20 gives a worker thread
// none of the module hooks its parent registered (`--import tsx` in the thread's flags does not help a dynamic
// import of a .ts file either), so the thread registers tsx's ESM loader for itself and then loads the worker as
// ESM, the same module graph the main thread runs. The built package starts its threads at fuzz-worker.js instead.
import { register } from 'tsx/esm/api';

register();
const { default: work } = await import('./fuzz-worker.ts');

export default work;
