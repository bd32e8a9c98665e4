// The npm packages (a release's dependencies, in the openclaw/ workspace's node_modules) that one instance of a
// release's chunks loads: the same hooks as the chunks (every free identifier resolves through the instance's
// simulated globals; `require` of a built-in module gets the instance's simulated one, or a loud one), compiled once
// per process (sim/real/openclaw-hooks.mjs compilePackageFile) and run afresh in each instance, so a package's
// module state (chalk's colour level read from the environment, zod's registry, a logger's settings) belongs to one
// process incarnation, as in a real process, and is freed with it. The one exception is a short list of pure, stateless
// packages that the host loads once and every instance shares (json5; sim/real/openclaw-hooks.mjs sharedPackages).
//
// When a package runs: CommonJS semantics inside the packages (a `require` runs the file at once, a cycle sees a
// partial `module.exports`). A chunk's static `import` of a package is deferred until the chunk first reads one of its
// bindings (the semantics of TC39's `import defer`): a package's evaluation only defines its own state and reads the
// instance's environment, which is fixed for the incarnation, so running it later changes nothing the chunk sees,
// and a package nothing on the component's path touches (pi-coding-agent behind the transcript chunk, jiti, file-type)
// is never run. Named imports of a package are therefore not checked at link time: a name the package lacks reads as
// undefined.
//
// As Node imports them: a CommonJS package's default export is its `module.exports` and each named import a property
// of it; an ES module package (rewritten to CommonJS by esbuild) keeps its own default and names.
import { assert } from '../../kernel/assert.ts';
import {
  chunkScope,
  compilePackageFile,
  type InstanceWorld,
  type Namespace,
  requireBuiltin,
  resolvePackage,
  resolvePackageFile,
  sharedPackageExports,
  workspaceHostPath,
  workspaceVirtualPath,
} from '../openclaw-hooks.mjs';

interface PackageModule {
  exports: unknown;
  /** True when the file was an ES module (its exports object carries its default and names). */
  esm: boolean;
  loaded: boolean;
  namespace: Namespace | undefined;
}

/** The module object a CommonJS file sees as `module`. */
interface ModuleObject {
  exports: unknown;
  id: string;
  filename: string;
  loaded: boolean;
  require: Require;
}

/** A CommonJS `require` with `require.resolve` (a virtual path) and an empty `require.cache`. */
export interface Require {
  (specifier: string): unknown;
  resolve(specifier: string): string;
  cache: Record<string, unknown>;
}

/** Resolves a file of the release's own package (a chunk under dist/) to its namespace, or undefined for any other. */
export type ReleaseFileLoader = (hostPath: string) => Namespace | undefined;

function dirnameOf(path: string): string {
  return path.slice(0, Math.max(1, path.lastIndexOf('/')));
}

function isRelativeOrAbsolute(specifier: string): boolean {
  return specifier.startsWith('./') || specifier.startsWith('../') || specifier.startsWith('/') || specifier === '.' || specifier === '..';
}

export class InstancePackages {
  private readonly modules = new Map<string, PackageModule>();

  constructor(
    private readonly world: InstanceWorld,
    /** Where a bare import of a release chunk is resolved from (the release's dist/ on the real disk). */
    private readonly distHostDir: string,
    private readonly releaseFile: ReleaseFileLoader,
    /** The host path of a virtual path under the release's package root, or undefined. */
    private readonly releaseHostPath: (virtualPath: string) => string | undefined,
  ) {}

  /** How many package files this instance has run. */
  get moduleCount(): number {
    return this.modules.size;
  }

  /** The namespace of a chunk's static import of a package: a function that runs the package on its first call. */
  deferredImport(specifier: string): () => Namespace {
    let namespace: Namespace | undefined;
    return () => (namespace ??= this.simulatedPackage(specifier) ?? this.importNamespace(resolvePackage(this.distHostDir, specifier, 'import')));
  }

  /** `import()` of a package by a chunk. */
  dynamicImport(specifier: string): Namespace {
    return this.simulatedPackage(specifier) ?? this.importNamespace(resolvePackage(this.distHostDir, specifier, 'import'));
  }

  /**
   * A package whose job is the loader's own, answered by the loader: jiti, the runtime loader the releases load
   * bundled plugin files with (`createJiti(parent)(path)` compiles the file through `new Module()._compile`, on the
   * host). Its jiti function requires through this instance instead: a release file under dist/ is its chunk (loaded
   * into the instance, as require of an ES module does on Node 22), anything else a package file.
   */
  private simulatedPackage(specifier: string): Namespace | undefined {
    if (specifier !== 'jiti') return undefined;
    const createJiti = (parent: string | URL) => {
      const text = String(parent);
      const require = this.world.createRequire(text.startsWith('file://') || text.startsWith('/') ? text : `file://${text}`);
      const jiti = (id: string) => require(id);
      jiti.import = (id: string) => Promise.resolve().then(() => require(id));
      jiti.resolve = (id: string) => (require as unknown as { resolve: (id: string) => string }).resolve(id);
      jiti.esmResolve = (id: string) => `file://${jiti.resolve(id)}`;
      return jiti;
    };
    return { createJiti, default: createJiti };
  }

  /**
   * The `require` of a file on the real disk (a chunk's createRequire, or a package file). An ES module's imports,
   * which esbuild rewrote to require calls, resolve a package with the `import` condition, as Node's ESM loader does.
   */
  requireFrom(fromHostFile: string, kind: 'import' | 'require' = 'require'): Require {
    const require = (specifier: string): unknown => {
      if (typeof specifier !== 'string') throw new TypeError(`gatesim: require takes a string, not ${typeof specifier}`);
      const builtin = requireBuiltin(this.world, specifier);
      if (builtin !== undefined) return builtin;
      const simulated = this.simulatedPackage(specifier);
      if (simulated !== undefined) return simulated.default;
      const file = this.resolve(fromHostFile, specifier, kind);
      const chunk = this.releaseFile(file);
      if (chunk !== undefined) return chunk;
      return this.load(file).exports;
    };
    require.resolve = (specifier: string): string => {
      if (requireBuiltin(this.world, specifier) !== undefined) return specifier;
      return workspaceVirtualPath(this.resolve(fromHostFile, specifier, kind));
    };
    require.cache = Object.create(null) as Record<string, unknown>;
    return require;
  }

  private resolve(fromHostFile: string, specifier: string, kind: 'import' | 'require'): string {
    if (!isRelativeOrAbsolute(specifier)) return resolvePackage(dirnameOf(fromHostFile), specifier, kind);
    if (!specifier.startsWith('/')) return resolvePackageFile(fromHostFile, specifier);
    // An absolute path is a virtual one (built from a __dirname or import.meta.url the code was given).
    const host = workspaceHostPath(specifier) ?? this.releaseHostPath(specifier);
    if (host === undefined) throw Object.assign(new Error(`Cannot find module '${specifier}'`), { code: 'MODULE_NOT_FOUND' });
    return resolvePackageFile(fromHostFile, host);
  }

  private importNamespace(hostPath: string): Namespace {
    const chunk = this.releaseFile(hostPath);
    if (chunk !== undefined) return chunk;
    const module = this.load(hostPath);
    if (module.esm) return module.exports as Namespace;
    const exportsOf = (): Record<string | symbol, unknown> => Object(module.exports) as Record<string | symbol, unknown>;
    module.namespace ??= new Proxy(Object.create(null) as Namespace, {
      get: (_target, key) => (key === 'default' ? module.exports : exportsOf()[key]),
      has: (_target, key) => key === 'default' || key in exportsOf(),
    });
    return module.namespace;
  }

  /** Run a package file in this instance (once; a second require gets its exports, partial during a cycle). */
  private load(hostPath: string): PackageModule {
    const existing = this.modules.get(hostPath);
    if (existing !== undefined) return existing;
    const shared = sharedPackageExports(hostPath);
    if (shared !== undefined) {
      const module: PackageModule = { exports: shared, esm: false, loaded: true, namespace: undefined };
      this.modules.set(hostPath, module);
      return module;
    }
    const compiled = compilePackageFile(hostPath);
    if (compiled.format === 'json') {
      const module: PackageModule = { exports: JSON.parse(compiled.json) as unknown, esm: false, loaded: true, namespace: undefined };
      this.modules.set(hostPath, module);
      return module;
    }
    const filename = workspaceVirtualPath(hostPath);
    const record: PackageModule = { exports: {}, esm: compiled.format === 'module', loaded: false, namespace: undefined };
    const require = this.requireFrom(hostPath, compiled.format === 'module' ? 'import' : 'require');
    const moduleObject: ModuleObject = { exports: record.exports, id: filename, filename, loaded: false, require };
    this.modules.set(hostPath, record);
    const importMeta = { url: `file://${filename}`, filename, dirname: dirnameOf(filename), resolve: (specifier: string) => `file://${require.resolve(specifier)}` };
    try {
      const run = compiled.outer(chunkScope(this.world, Object.create(null) as object));
      // A file may replace module.exports at any point: the record follows it. It may also redefine the property (as
      // ansi-styles 4 does, with a getter): configurable, as on Node's module object, and read once at the end.
      Object.defineProperty(moduleObject, 'exports', {
        get: () => record.exports,
        set: (value: unknown) => {
          record.exports = value;
        },
        enumerable: true,
        configurable: true,
      });
      run.call(record.exports, record.exports, require, moduleObject, filename, dirnameOf(filename), importMeta);
      record.exports = moduleObject.exports;
    } catch (error) {
      // As Node's require cache: a file whose evaluation threw is not kept, a later require runs it again.
      this.modules.delete(hostPath);
      throw error;
    }
    record.loaded = true;
    moduleObject.loaded = true;
    assert(this.modules.get(hostPath) === record, `the package file ${filename} is recorded once`);
    return record;
  }
}
