// Loads a real module into the simulated world. The hooks of sim/real/hooks.mjs (copied beside the compiled loader by
// the build, so they ship in the package) are registered once (node:module register), then pi's session-manager.js is
// imported by its file URL, so it runs with its fs, crypto, uuid, Date and process.cwd routed to sim/real/bindings.ts.
// The package is optional (it is large). It is looked for in this repository's real/ workspace (`npm ci --prefix
// real`), then in the node_modules folders of the working directory and its parents (a project that installed gatesim
// and `npm install --save-dev @mariozechner/pi-coding-agent@0.73.1`), then in those above gatesim itself. When it is
// nowhere the loader answers undefined (piMissingMessage says how to install it); another version is refused, since
// the hooks and the seed strings made with `@pi` are made for this one.
import { createRequire, register } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { PiSessionManagerModule } from './pi-types.ts';

export const piPackage = '@mariozechner/pi-coding-agent';
export const piVersion = '0.73.1';
const installCommands = `\`npm install --save-dev ${piPackage}@${piVersion}\` in your project (or \`npm ci --prefix real\` in a clone of gatesim: the real/ workspace)`;
export const piMissingMessage = `${piPackage}@${piVersion} is not installed: to use the real pi SessionManager, run ${installCommands}`;

const hooksUrl = new URL('./hooks.mjs', import.meta.url);
/** gatesim's own folder (a clone, or the installed package): two above the sources (sim/real/), three above dist/sim/real/. */
const repositoryRoot = fileURLToPath(new URL(import.meta.url.endsWith('.ts') ? '../../' : '../../../', import.meta.url));
const require = createRequire(import.meta.url);

/** The node_modules folders of `directory` and each of its parents, nearest first. */
function nodeModulesAbove(directory: string): string[] {
  const folders: string[] = [];
  for (let current = directory; ; current = dirname(current)) {
    folders.push(join(current, 'node_modules'));
    if (dirname(current) === current) return folders;
  }
}

/** The folders where pi may be installed, in the order they are searched. */
function piSearchPath(cwd: string): string[] {
  const folders = [join(repositoryRoot, 'real', 'node_modules'), ...nodeModulesAbove(cwd), ...nodeModulesAbove(dirname(fileURLToPath(import.meta.url)))];
  return [...new Set(folders)].map((folder) => join(folder, ...piPackage.split('/')));
}

/** The first installed pi package (its folder and version), or undefined. Its package.json is read by absolute path. */
function findPi(cwd: string): { folder: string; version: string } | undefined {
  for (const folder of piSearchPath(cwd)) {
    let manifest: { version?: unknown };
    try {
      manifest = require(join(folder, 'package.json')) as { version?: unknown };
    } catch (error) {
      if ((error as { code?: unknown }).code === 'MODULE_NOT_FOUND') continue;
      throw error;
    }
    return { folder, version: String(manifest.version) };
  }
  return undefined;
}

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
  const pi = findPi(process.cwd());
  if (pi === undefined) return undefined;
  if (pi.version !== piVersion) throw new Error(`${piPackage}@${pi.version} is installed (${pi.folder}), but the real pi SessionManager runs ${piVersion} only: ${installCommands}`);
  registerHooks();
  return (await import(pathToFileURL(join(pi.folder, 'dist', 'core', 'session-manager.js')).href)) as PiSessionManagerModule;
}

/** The real pi session-manager module, loaded under the hooks; undefined when pi is installed nowhere it is looked for. */
export function loadPiSessionManager(): Promise<PiSessionManagerModule | undefined> {
  loading ??= load();
  return loading;
}
