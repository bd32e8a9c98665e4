// What the model needs from the world besides the process ports: the LLM API, the deployed config generation, and
// how the runner opens transcripts. Its own module so that the runner and the turn can name it without importing the
// module that builds the model (which imports them).
import type { LlmApi } from './ports.ts';
import type { SessionManagerFactory } from './session-manager-port.ts';

/** What the model needs from the world besides the process ports. */
export interface ModelEnvironment {
  llm: LlmApi;
  /** The deployed config generation; cached agents built for another generation are stale. */
  configGeneration(): number;
  /** Opens the runner's transcripts; default the model's own SessionManager (sim/real hands in the real pi one). */
  sessionManagerFactory?: SessionManagerFactory;
}
