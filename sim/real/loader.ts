// Loads a real module into the simulated world. The hooks of sim/real/hooks.mjs are registered once (node:module
// register), then pi's session-manager.js is imported by its file URL from the real/ workspace package, so it runs
// with its fs, crypto, uuid, Date and process.cwd routed to sim/real/bindings.ts. The package is optional (it is
// large): when real/ has not been installed the loader answers undefined and says how to install it.
import { register } from 'node:module';
import type { PiSessionManagerModule } from './pi-types.ts';

export const piPackage = '@mariozechner/pi-coding-agent';
export const piVersion = '0.73.1';
export const piMissingMessage = `${piPackage}@${piVersion} is not installed: run \`npm ci --prefix real\` (the real/ workspace) to use the real pi SessionManager`;

const moduleUrl = new URL(`../../real/node_modules/${piPackage}/dist/core/session-manager.js`, import.meta.url);
const hooksUrl = new URL('./hooks.mjs', import.meta.url);

let loading: Promise<PiSessionManagerModule | undefined> | undefined;

const registeredKey = Symbol.for('gatesim.real.hooks-registered');

/** Register the hooks once per process (a test runner may evaluate this module more than once in one process). */
function registerHooks(): void {
  const holder = globalThis as unknown as Record<symbol, boolean | undefined>;
  if (holder[registeredKey] === true) return;
  holder[registeredKey] = true;
  register(hooksUrl.href);
}

async function load(): Promise<PiSessionManagerModule | undefined> {
  registerHooks();
  try {
    return (await import(moduleUrl.href)) as PiSessionManagerModule;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'ERR_MODULE_NOT_FOUND' && String((error as Error).message).includes(moduleUrl.pathname)) return undefined;
    throw error;
  }
}

/** The real pi session-manager module, loaded under the hooks; undefined when real/ is not installed. */
export function loadPiSessionManager(): Promise<PiSessionManagerModule | undefined> {
  loading ??= load();
  return loading;
}
