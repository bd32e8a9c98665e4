// Types of sim/real/openclaw-hooks.mjs (the host side of the OpenClaw loader) as sim/real/openclaw/ uses them.

/** What one instance (one process incarnation) of a release's chunks is bound to. */
export interface HooksBinding {
  /** Date.now: wall-clock milliseconds (the simulated clock from the simulation's epoch). */
  epochNowMs(): number;
  /** performance.now, process.hrtime, process.uptime: the simulated clock. */
  monotonicMs(): number;
  setTimer(delayMs: number, fn: () => void): { cancel(): void };
  /** Uniform integer in [min, max]. */
  randomInt(min: number, max: number): number;
  uuidV4(): string;
  /** False once the incarnation is killed: queued microtasks and ticks of the instance do not run. */
  alive(): boolean;
  /** Told of every use of something the hooks do not simulate, even when the chunk catches the error. */
  escaped(what: string): void;
  log(level: string, text: string): void;
  pid: number;
  ppid: number;
  env: Record<string, string>;
  cwd: string;
  home: string;
  tmpdir: string;
  hostname: string;
  /** Where the release's package appears in the simulated world (import.meta.url points under it). */
  packageRoot: string;
  /** Built-in modules the instance's Node does not offer, whatever the host Node has (`sqlite`: the JSONL-era releases). */
  absentBuiltins?: readonly string[];
  /** Where its files are on the real disk. */
  packageHostDir: string;
  /** node:fs functions of the simulated disk, on absolute paths (any other fs function throws). */
  fs?: Record<string, (...args: never[]) => unknown>;
  fsPromises?: Record<string, (...args: never[]) => Promise<unknown>>;
  /** `new Function` compiles under the instance's scope (ajv); without it, code generation from strings throws EvalError. */
  codeGeneration?: boolean;
  /** `process.kill(pid, 0)`: whether a simulated process with this pid exists (without it, any kill is not simulated). */
  processExists?: (pid: number) => boolean;
  /**
   * The simulated disk's binary files as this incarnation sees them (sim/kernel/disk.ts binaryFilesOf): with them,
   * node:sqlite is the simulated one (sim/real/openclaw-hooks/sqlite.mjs; its engine loaded first with
   * loadSimulatedSqlite); without them, in-memory databases only.
   */
  sqliteFiles?: SqliteFiles;
  /**
   * The simulated node:sqlite's busy fault, per 1,000 calls that take a write lock: such a call fails with
   * SQLITE_BUSY ("database is locked") before writing anything, its busy handler's retries refused too (0 or absent:
   * never, and no draw from the PRNG).
   */
  sqliteBusyPer1000?: number;
}

/** The binary-file calls the simulated node:sqlite's VFS makes, each at once (sim/kernel/disk.ts BinaryFiles). */
export interface SqliteFiles {
  /** Locks and the WAL index are shared per disk. */
  readonly disk: object;
  alive(): boolean;
  size(path: string): number | undefined;
  read(path: string, offset: number, length: number): Uint8Array | undefined;
  write(path: string, offset: number, data: Uint8Array): void;
  truncate(path: string, size: number): void;
  sync(path: string): void;
  remove(path: string): void;
  /** Whether a folder exists (a new database file needs its folder, as on Linux); without it, every folder does. */
  directoryExists?(path: string): boolean;
}

export interface InstanceWorld {
  readonly binding: HooksBinding;
  /** `module.createRequire(url)` in this instance (the loader sets it). */
  createRequire: (url: string | URL) => (specifier: string) => unknown;
}

export type Namespace = Record<string, unknown>;

export const openclawWorkspaceDir: string;
export function enoent(syscall: string, path: string): Error;
export function simulatedStats(kind: 'file' | 'directory', size: number, permissions?: number): object;
export function simulatedDirent(name: string, parentPath: string, kind: 'file' | 'directory'): object;
export function releasePackageDir(release: string): string | undefined;
/** Whether a file of a release's dist/ is a chunk (`.js`, or `.mjs` as 2026.9.6 ships them). */
export function isChunkFile(name: string): boolean;
export function listReleaseChunks(release: string): string[] | undefined;
export function readReleaseChunk(release: string, file: string): string;
export function virtualPackageRoot(release: string): string;
export function compileChunk(body: string, registration: string, filename: string): (scope: object) => () => Generator<undefined, void, undefined>;
export function createInstanceWorld(binding: HooksBinding): InstanceWorld;
export function chunkScope(world: InstanceWorld, own: object): object;
/** Whether the loader runs without issue 46's second-round speed-ups (compile.mjs), to compare in one process. */
export function loaderBeforeRound2(): boolean;
export function builtinModule(world: InstanceWorld, specifier: string, importedNames: readonly string[]): Namespace | undefined;

/** Where workspace package files appear in the simulated world. */
export const workspaceVirtualRoot: string;
export function workspaceVirtualPath(hostPath: string): string;
export function workspaceHostPath(virtualPath: string): string | undefined;
export function resolvePackage(fromHostDir: string, specifier: string, kind: 'import' | 'require'): string;
export function resolvePackageFile(fromHostFile: string, specifier: string): string;
export type CompiledPackageFile =
  | { format: 'json'; json: string }
  | {
      format: 'commonjs' | 'module';
      outer: (scope: object) => (this: unknown, exports: unknown, require: unknown, module: unknown, filename: string, dirname: string, importMeta: unknown) => void;
    };
export function compilePackageFile(hostPath: string): CompiledPackageFile;
/** esbuild's rewrite of an ES module to CommonJS under `options`, through the on-disk cache (package-loader.mjs). */
export function rewrittenToCommonJs(body: string, options: object): string;
export function requireBuiltin(world: InstanceWorld, specifier: string): unknown;
/** The host's exports of a shared pure package's file (json5), or undefined. */
export function sharedPackageExports(hostPath: string): unknown;
/** The contents a simulated read stream carries, for the simulated node:readline. */
export const readStreamContents: unique symbol;
