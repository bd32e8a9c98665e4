// `--load <module>`: the command line imports a user's module before it parses the command, so the scenarios and
// invariants that module registers (registerScenario, registerInvariant) are listed, run, fuzzed and replayed from
// seed strings like the built-in ones. A TypeScript module is loaded through tsx, found in the user's project (or
// beside gatesim), when Node cannot load it by itself. The user's TypeScript files are ES modules even in a package
// without "type": "module" (the default of `npm init -y`): see esmTypeScriptHooks.
//
// A module is given as a path (`./x.ts`, `x.ts` when that file exists, an absolute path or a file: URL) or a package
// specifier. splitLoadOptions makes each path absolute (the real file, links followed) and drops a module given twice,
// so it loads once; a seed string names it by its name (loadName): a file relative to its project root (the nearest
// folder above it with a package.json, outside node_modules), e.g. `./test/setup.ts`, or the package specifier, so the
// name is the same from every folder of the project. loadArgument turns a name back into a `--load` argument that
// works from the current folder. Whether a file exists is asked of Node's module resolution (createRequire), links
// followed by real.ts (docs/ARCHITECTURE.md section 2: only real.ts touches the file system directly).
import { createRequire, register } from 'node:module';
import { basename, dirname, isAbsolute, join, posix, relative, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { followLinks } from './real.ts';

/** A module named by --load could not be loaded (exit 2 with one line). */
export class LoadError extends Error {
  override name = 'LoadError';
}

/**
 * Take every `--load <module>` (or `--load=<module>`) out of argv, in order, before the command name. A path is made
 * absolute (relative to `cwd`; the real file when it exists), a package specifier stays as given, and a module given
 * twice (by any spelling) is kept once, where it first stood.
 */
export function splitLoadOptions(argv: readonly string[], cwd: string = process.cwd()): { modules: string[]; rest: string[] } {
  const modules: string[] = [];
  const rest: string[] = [];
  const add = (module: string): void => {
    const file = moduleFile(module, cwd);
    const named = file ?? module;
    if (!modules.includes(named)) modules.push(named);
  };
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index] as string;
    if (arg === '--') {
      rest.push(...argv.slice(index));
      break;
    }
    if (arg.startsWith('--load=')) add(arg.slice('--load='.length));
    else if (arg === '--load') {
      const next = argv[index + 1];
      if (next === undefined || next.startsWith('-')) throw new LoadError('--load needs a module path');
      add(next);
      index++;
    } else rest.push(arg);
  }
  return { modules, rest };
}

/**
 * The specifier `--load <module>` imports: a path made an absolute file URL (relative to `cwd`; the real file when it
 * exists, so two spellings of one file give one URL), or a package specifier as given.
 */
export function loadSpecifier(module: string, cwd: string): string {
  const file = moduleFile(module, cwd);
  return file === undefined ? module : pathToFileURL(file).href;
}

/** Import each module (a path relative to the working directory, or a package name), in order, each file once. */
export async function loadModules(modules: readonly string[], cwd: string): Promise<void> {
  const imported = new Set<string>();
  for (const module of modules) {
    const specifier = loadSpecifier(module, cwd);
    if (imported.has(specifier)) continue;
    imported.add(specifier);
    try {
      await importWithTypeScript(specifier, cwd);
    } catch (error) {
      if (error instanceof LoadError) throw error;
      throw new LoadError(`--load ${module}: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
    }
  }
}

/**
 * The name a seed string gives a module: for a file, its path relative to its project root (the nearest folder above
 * it with a package.json, not inside node_modules; failing that the project of `cwd`, failing that `cwd`), written
 * `./<path>` (`../<path>` when it lies outside that root); for a package, its specifier. `module` is an absolute path
 * or file: URL, a package specifier, or a name already (a relative path, as splitLoadOptions never leaves one), which
 * is returned normalized: a name is the same from every folder of the project.
 */
export function loadName(module: string, cwd: string): string {
  if (isRelativeName(module)) return relativeName(posix.normalize(module.replace(/\\/g, '/')));
  const file = module.startsWith('file:') ? fileURLToPath(module) : isAbsolute(module) ? (existingFile(module) ?? module) : undefined;
  if (file === undefined) return module;
  const root = projectRoot(dirname(file)) ?? projectRoot(cwd) ?? cwd;
  return relativeName(relative(root, file));
}

/**
 * The `--load` argument that loads the module named `name` (loadName) from `cwd`: a package specifier as it is; a
 * file relative to `cwd`, found under the nearest folder above `cwd` with a package.json that holds it (else under the
 * project of `cwd`), e.g. `../test/setup.ts` from a subfolder of the project.
 */
export function loadArgument(name: string, cwd: string): string {
  if (!isRelativeName(name) && !isAbsolute(name)) return name;
  if (isAbsolute(name)) return relativeName(relative(cwd, name));
  for (let dir = cwd; ; dir = dirname(dir)) {
    if (!insideNodeModules(dir) && existingFile(join(dir, 'package.json')) !== undefined && existingFile(join(dir, name)) !== undefined) {
      return relativeName(relative(cwd, join(dir, name)));
    }
    if (dirname(dir) === dir) break;
  }
  return relativeName(relative(cwd, resolve(projectRoot(cwd) ?? cwd, name)));
}

/** The absolute file a module given to --load names, or undefined for a package specifier. */
function moduleFile(module: string, cwd: string): string | undefined {
  if (module.startsWith('file:')) return existingFile(fileURLToPath(module)) ?? fileURLToPath(module);
  const path = resolve(cwd, module);
  if (module.startsWith('.') || isAbsolute(module)) return existingFile(path) ?? path;
  // A bare `x.ts` names that file when it exists (a package specifier never names a file of the folder by itself).
  return /^[A-Za-z][A-Za-z0-9+.-]*:/.test(module) ? undefined : existingFile(path);
}

/** The real path of an existing file at `path` (links followed), found as Node's module resolution finds it. */
function existingFile(path: string): string | undefined {
  try {
    const target = followLinks(path);
    const found = createRequire(target).resolve(target);
    // Resolution would also take `path.js` or a folder's index file: only the file itself counts.
    return basename(found) === basename(target) ? found : undefined;
  } catch {
    return undefined;
  }
}

/** The nearest folder at or above `dir` with a package.json, outside node_modules. */
function projectRoot(dir: string): string | undefined {
  for (let at = dir; ; at = dirname(at)) {
    if (!insideNodeModules(at) && existingFile(join(at, 'package.json')) !== undefined) return at;
    if (dirname(at) === at) return undefined;
  }
}

function insideNodeModules(dir: string): boolean {
  return dir.split(sep).includes('node_modules');
}

function isRelativeName(module: string): boolean {
  return module === '.' || module === '..' || /^\.\.?[\\/]/.test(module);
}

/** A relative path written with `/`, starting `./` or `../`. */
function relativeName(path: string): string {
  const slashed = path.split(sep).join('/');
  return slashed.startsWith('../') || slashed.startsWith('./') ? slashed : `./${slashed}`;
}

let tsxRegistered = false;

/** A TypeScript file of the user's (not a .cts, not under node_modules), which tsx loads as an ES module. */
const userTypeScriptFile = /^file:[^?#]*\.(?:tsx?|mts)(?:[?#]|$)/;

async function importWithTypeScript(specifier: string, cwd: string): Promise<void> {
  // Node 22.18+ and 24 strip types themselves, but in a package without "type": "module" they take a .ts file for
  // CommonJS ("Cannot use import statement outside a module"), where Node 20 refuses the extension: tsx loads the
  // user's TypeScript on every Node, the same way.
  if (!tsxRegistered && userTypeScriptFile.test(specifier) && !specifier.includes('/node_modules/')) await registerTsx(cwd, specifier);
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
