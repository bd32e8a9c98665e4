// One instance of a release's chunks: what one simulated process incarnation runs. A chunk is read, parsed and
// compiled once per process (sim/real/openclaw-hooks.mjs compileChunk); an instance calls the compiled function with
// scopes of its own, so every module-level `let`, every globalThis singleton and every timer belongs to the instance,
// and all of it is garbage once the instance is dropped. (A fresh ES module per incarnation is never freed: issue 22
// measured +299 MB over 2,000 instances of one 9 KiB chunk.)
//
// Loading follows ES module semantics: a chunk's closure (its static imports, recursively) is linked first (each
// chunk's exports registered as getters, imports bound as live getters, every named import checked), then evaluated
// depth first in import order; a cycle sees what real ESM would; an evaluation error is kept and thrown again on the
// next load. `import()` of a chunk loads it into the same instance. A bare package import (a dependency of the
// release rather than one of its chunks) is loaded from the workspace's node_modules into the same instance, under
// the same hooks, when the chunk first uses it (packages.ts); `module.createRequire` of a chunk requires through it.
import { assert } from '../../kernel/assert.ts';
import {
  builtinModule,
  chunkScope,
  compileChunk,
  createInstanceWorld,
  type HooksBinding,
  isChunkFile,
  type InstanceWorld,
  type Namespace,
  readReleaseChunk,
  releasePackageDir,
  virtualPackageRoot,
  workspaceHostPath,
} from '../openclaw-hooks.mjs';
import { type ParsedChunk, parseChunk, resolveOpenclawExport } from './chunks.ts';
import { InstancePackages } from './packages.ts';
import { type OpenclawRelease, requireRelease, workspaceMissing } from './releases.ts';

interface CompiledChunk {
  parsed: ParsedChunk;
  outer: (scope: object) => () => Generator<undefined, void, undefined>;
}

const compiled = new Map<string, CompiledChunk>();

/** The exports registration the compiled chunk runs first: a getter per export (live, and TDZ-checked). */
function registration(parsed: ParsedChunk): string {
  const getters = parsed.exports.map(({ local, exported }) => `get ${JSON.stringify(exported)}() { return ${local}; }`);
  return `__gatesimExports({ ${getters.join(', ')} });`;
}

function compiledChunk(release: OpenclawRelease, file: string): CompiledChunk {
  const key = `${release}\u0000${file}`;
  let chunk = compiled.get(key);
  if (chunk === undefined) {
    const source = readReleaseChunk(release, file);
    const parsed = parseChunk(source);
    if (parsed.unsupported !== undefined) throw new Error(`gatesim: openclaw ${release} dist/${file} cannot be loaded: ${parsed.unsupported}`);
    const lines = source.split('\n');
    for (let index = 0; index < parsed.headerLines; index++) lines[index] = '';
    if (parsed.exportLine !== undefined) lines[parsed.exportLine] = '';
    for (const { line } of parsed.starExports) lines[line] = '';
    for (const line of parsed.bodyImportLines) lines[line] = '';
    const body = lines
      .join('\n')
      .replace(/\bimport\.meta\b/g, '__gatesimImportMeta')
      .replace(/(?<![\w$.])import\s*\(/g, '__gatesimImport(');
    chunk = { parsed, outer: compileChunk(body, registration(parsed), `${virtualPackageRoot(release)}/dist/${file}`) };
    compiled.set(key, chunk);
  }
  return chunk;
}

type Status = 'linked' | 'evaluating' | 'evaluated' | 'failed';

interface ChunkRecord {
  file: string;
  namespace: Namespace | undefined;
  generator: Generator<undefined, void, undefined> | undefined;
  deps: string[];
  status: Status;
  error: unknown;
}

/** A relative import of one chunk by another, as a path under dist/. */
function resolveRelative(from: string, specifier: string): string {
  const parts = from.split('/').slice(0, -1);
  for (const part of specifier.split('/')) {
    if (part === '.' || part === '') continue;
    if (part === '..') {
      assert(parts.length > 0, `the import ${specifier} of ${from} leaves dist/`);
      parts.pop();
    } else parts.push(part);
  }
  return parts.join('/');
}

function isRelative(specifier: string): boolean {
  return specifier.startsWith('./') || specifier.startsWith('../');
}

export class OpenclawInstance {
  readonly world: InstanceWorld;
  private readonly packageDir: string;
  private readonly packages: InstancePackages;
  private readonly records = new Map<string, ChunkRecord>();

  constructor(
    readonly release: OpenclawRelease,
    readonly binding: HooksBinding,
  ) {
    requireRelease(release);
    if (releasePackageDir(release) === undefined) throw workspaceMissing(release);
    this.packageDir = releasePackageDir(release) as string;
    this.world = createInstanceWorld(binding);
    const root = virtualPackageRoot(release);
    this.packages = new InstancePackages(
      this.world,
      `${this.packageDir}dist`,
      (hostPath) => this.releaseFile(hostPath),
      (virtualPath) => (virtualPath.startsWith(`${root}/`) ? `${this.packageDir}${virtualPath.slice(root.length + 1)}` : undefined),
    );
    this.world.createRequire = (url) => this.createRequire(url);
  }

  /** How many files of the release's npm packages this instance has run. */
  get packageModuleCount(): number {
    return this.packages.moduleCount;
  }

  /** How many chunks this instance has loaded. */
  get chunkCount(): number {
    return this.records.size;
  }

  /** A chunk's namespace (its export letters), its closure linked and evaluated on first use. */
  chunk(file: string): Namespace {
    this.link(file);
    this.evaluate(file);
    const record = this.records.get(file);
    assert(record?.namespace !== undefined, `chunk ${file} has no namespace after evaluation`);
    return record.namespace;
  }

  /** A real export by (source file, real name): the value the release's code itself would call. */
  export(sourceFile: string, name: string): unknown {
    const resolved = resolveOpenclawExport(this.release, sourceFile, name);
    return this.chunk(resolved.chunk)[resolved.exportName];
  }

  /** A real function by (source file, real name); throws when the export is not a function. */
  function<F extends (...args: never[]) => unknown>(sourceFile: string, name: string): F {
    const value = this.export(sourceFile, name);
    if (typeof value !== 'function') throw new Error(`gatesim: ${name} of ${sourceFile} in openclaw ${this.release} is a ${typeof value}, not a function`);
    return value as F;
  }

  private namespaceOf(file: string): Namespace {
    const namespace = this.records.get(file)?.namespace;
    if (namespace === undefined) throw new ReferenceError(`gatesim: chunk ${file} is used before it was linked`);
    return namespace;
  }

  private link(file: string): void {
    if (this.records.has(file)) return;
    const { parsed, outer } = compiledChunk(this.release, file);
    const record: ChunkRecord = { file, namespace: undefined, generator: undefined, deps: [], status: 'linked', error: undefined };
    this.records.set(file, record);
    const own: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
    const url = `file://${virtualPackageRoot(this.release)}/dist/${file}`;
    own.__gatesimExports = (namespace: Namespace) => {
      record.namespace = namespace;
    };
    own.__gatesimImportMeta = {
      url,
      filename: url.slice('file://'.length),
      dirname: url.slice('file://'.length).split('/').slice(0, -1).join('/'),
      resolve: (specifier: string) => {
        this.binding.escaped(`import.meta.resolve(${specifier}) in ${file}`);
        throw new Error(`gatesim: import.meta.resolve is not simulated (${file})`);
      },
    };
    own.__gatesimImport = (specifier: string) => this.dynamicImport(file, specifier);
    const checks: { dep: string; imported: string }[] = [];
    for (const declaration of parsed.imports) {
      const { specifier } = declaration;
      let namespaceOf: () => Namespace;
      if (isRelative(specifier)) {
        const dep = resolveRelative(file, specifier);
        record.deps.push(dep);
        namespaceOf = () => this.namespaceOf(dep);
        for (const { imported } of declaration.named) checks.push({ dep, imported });
        if (declaration.defaultLocal !== undefined) checks.push({ dep, imported: 'default' });
      } else {
        const namespace = builtinModule(this.world, specifier, declaration.named.map(({ imported }) => imported));
        if (namespace === undefined) namespaceOf = this.packages.deferredImport(specifier);
        else {
          for (const { imported } of declaration.named) {
            if (!(imported in namespace)) throw new SyntaxError(`gatesim: the simulated ${specifier} has no export ${imported} (imported by ${file})`);
          }
          namespaceOf = () => namespace;
        }
      }
      for (const { imported, local } of declaration.named) Object.defineProperty(own, local, { get: () => namespaceOf()[imported], enumerable: true });
      if (declaration.defaultLocal !== undefined) Object.defineProperty(own, declaration.defaultLocal, { get: () => namespaceOf().default, enumerable: true });
      if (declaration.namespaceLocal !== undefined) Object.defineProperty(own, declaration.namespaceLocal, { get: () => namespaceOf(), enumerable: true });
    }
    const stars: string[] = [];
    for (const { specifier } of parsed.starExports) {
      if (!isRelative(specifier)) throw new Error(`gatesim: openclaw ${this.release} dist/${file} re-exports the package ${specifier}, which the loader does not follow`);
      const dep = resolveRelative(file, specifier);
      record.deps.push(dep);
      stars.push(dep);
    }
    record.generator = outer(chunkScope(this.world, own))();
    const registered = record.generator.next();
    assert(!registered.done && record.namespace !== undefined, `chunk ${file} did not register its exports`);
    for (const dep of record.deps) this.link(dep);
    // `export * from`: every name of the dependency but its default, unless the chunk exports that name itself.
    const namespace = record.namespace;
    for (const dep of stars) {
      const from = this.namespaceOf(dep);
      for (const name of Object.keys(from)) {
        if (name === 'default' || name in namespace) continue;
        Object.defineProperty(namespace, name, { get: () => from[name], enumerable: true });
      }
    }
    for (const { dep, imported } of checks) {
      if (!(imported in this.namespaceOf(dep))) throw new SyntaxError(`gatesim: openclaw ${this.release} dist/${dep} has no export ${imported} (imported by ${file})`);
    }
  }

  private evaluate(file: string): void {
    const record = this.records.get(file);
    assert(record !== undefined, `chunk ${file} evaluated before it was linked`);
    if (record.status === 'evaluated' || record.status === 'evaluating') return;
    if (record.status === 'failed') throw record.error;
    record.status = 'evaluating';
    try {
      for (const dep of record.deps) this.evaluate(dep);
      const generator = record.generator;
      assert(generator !== undefined, `chunk ${file} has no body to run`);
      const step = generator.next();
      assert(step.done === true, `chunk ${file} yielded during its evaluation`);
      record.generator = undefined;
      record.status = 'evaluated';
    } catch (error) {
      record.status = 'failed';
      record.error = error;
      record.generator = undefined;
      throw error;
    }
  }

  private dynamicImport(from: string, specifier: string): Promise<Namespace> {
    if (isRelative(specifier)) return Promise.resolve().then(() => this.chunk(resolveRelative(from, specifier)));
    const namespace = builtinModule(this.world, specifier, []);
    if (namespace !== undefined) return Promise.resolve(namespace);
    return Promise.resolve().then(() => this.packages.dynamicImport(specifier));
  }

  /** A chunk of this release by its file on the real disk (a require of dist/<file>.js or .mjs), else undefined. */
  private releaseFile(hostPath: string): Namespace | undefined {
    const dist = `${this.packageDir}dist/`;
    if (!hostPath.startsWith(dist) || !isChunkFile(hostPath)) return undefined;
    return this.chunk(hostPath.slice(dist.length));
  }

  /** `module.createRequire(url)`: a file URL (or path) under the release's virtual package root or the workspace's. */
  private createRequire(url: string | URL): (specifier: string) => unknown {
    const text = String(url);
    const path = text.startsWith('file://') ? text.slice('file://'.length) : text;
    const root = virtualPackageRoot(this.release);
    const packageFile = workspaceHostPath(path);
    if (packageFile !== undefined) return this.packages.requireFrom(packageFile);
    if (path !== root && !path.startsWith(`${root}/`)) {
      this.binding.escaped(`module.createRequire(${text.slice(0, 120)})`);
      throw new Error(`gatesim: module.createRequire outside the release's package (${text.slice(0, 120)})`);
    }
    return this.packages.requireFrom(`${this.packageDir}${path.slice(root.length + 1)}`);
  }
}
