// `--load <module>`: the command line imports a user's module before it parses the command, so the scenarios and
// invariants that module registers (registerScenario, registerInvariant) are listed, run, fuzzed and replayed from
// seed strings like the built-in ones. A TypeScript module is loaded through tsx, found in the user's project (or
// beside gatesim), when Node cannot load it by itself. The user's TypeScript files are ES modules even in a package
// without "type": "module" (the default of `npm init -y`): see esmTypeScriptHooks.
import { createRequire, register } from 'node:module';
import { dirname, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** A module named by --load could not be loaded (exit 2 with one line). */
export class LoadError extends Error {
  override name = 'LoadError';
}

/** Take every `--load <module>` (or `--load=<module>`) out of argv, in order, before the command name. */
export function splitLoadOptions(argv: readonly string[]): { modules: string[]; rest: string[] } {
  const modules: string[] = [];
  const rest: string[] = [];
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index] as string;
    if (arg === '--') {
      rest.push(...argv.slice(index));
      break;
    }
    if (arg.startsWith('--load=')) modules.push(arg.slice('--load='.length));
    else if (arg === '--load') {
      const next = argv[index + 1];
      if (next === undefined || next.startsWith('-')) throw new LoadError('--load needs a module path');
      modules.push(next);
      index++;
    } else rest.push(arg);
  }
  return { modules, rest };
}

/** The specifier `--load <module>` imports: a path made an absolute file URL (relative to `cwd`), or a package name as given. */
export function loadSpecifier(module: string, cwd: string): string {
  return module.startsWith('.') || module.startsWith('/') ? pathToFileURL(resolve(cwd, module)).href : module;
}

/** Import each module (a path relative to the working directory, or a package name), in order. */
export async function loadModules(modules: readonly string[], cwd: string): Promise<void> {
  for (const module of modules) {
    const specifier = loadSpecifier(module, cwd);
    try {
      await importWithTypeScript(specifier, cwd);
    } catch (error) {
      if (error instanceof LoadError) throw error;
      throw new LoadError(`--load ${module}: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
    }
  }
}

let tsxRegistered = false;

async function importWithTypeScript(specifier: string, cwd: string): Promise<void> {
  try {
    await import(specifier);
  } catch (error) {
    const unknownExtension = (error as { code?: unknown }).code === 'ERR_UNKNOWN_FILE_EXTENSION';
    if (!unknownExtension || tsxRegistered) throw error;
    await registerTsx(cwd, specifier);
    // Node remembers the failed import of this URL; a query makes a fresh one (the module runs once either way).
    await import(`${specifier}${specifier.includes('?') ? '&' : '?'}gatesim-load`);
  }
}

/**
 * Module hooks registered before tsx's, so they answer tsx's resolve: a .ts or .tsx file outside node_modules is an
 * ES module whatever its package.json says. In a CommonJS package tsx would run the user's setup file as CommonJS,
 * and its `require('gatesim')` would then load a second copy of gatesim (tsx compiles gatesim's ES modules to
 * CommonJS) whose registry the command line never reads: the registered scenarios and invariants would vanish.
 * A .cts file stays CommonJS.
 */
const esmTypeScriptHooks = `export async function resolve(specifier, context, nextResolve) {
  const resolved = await nextResolve(specifier, context);
  const typeScript = /^file:[^?#]*\\.tsx?(?:[?#]|$)/.test(resolved.url) && !resolved.url.includes('/node_modules/');
  return typeScript && resolved.format !== 'module' && resolved.format !== 'module-typescript' ? { ...resolved, format: 'module' } : resolved;
}
`;

/** Register tsx's ESM loader, from the user's project first, then from beside gatesim. */
async function registerTsx(cwd: string, specifier: string): Promise<void> {
  for (const base of [resolve(cwd, 'package.json'), fileURLToPath(import.meta.url)]) {
    const entry = tsxEsmApi(base);
    if (entry === undefined) continue;
    const api = (await import(pathToFileURL(entry).href)) as { register: () => unknown };
    register(`data:text/javascript,${encodeURIComponent(esmTypeScriptHooks)}`);
    api.register();
    tsxRegistered = true;
    return;
  }
  throw new LoadError(`--load ${specifier}: loading TypeScript needs tsx in your project (npm install --save-dev tsx), or load compiled JavaScript`);
}

/** The path of tsx's ESM register API as seen from `base`, read from tsx's own package exports. */
function tsxEsmApi(base: string): string | undefined {
  const require = createRequire(base);
  try {
    const manifestPath = require.resolve('tsx/package.json');
    const manifest = require(manifestPath) as { exports?: Record<string, { import?: { default?: string } } | string> };
    const api = manifest.exports?.['./esm/api'];
    const relativePath = typeof api === 'object' ? api.import?.default : undefined;
    return relativePath === undefined ? undefined : resolve(dirname(manifestPath), relativePath);
  } catch {
    return undefined;
  }
}
