// OpenClaw's steps around opening a session file for a run attempt (`src/agents/pi-embedded-runner/run/attempt.ts`),
// taken under the session write lock (here: the session lane):
// 1. repairSessionFileIfNeeded (`src/agents/session-file-repair.ts`): the lines are parsed, blank lines skipped and
//    lines that do not parse dropped. The header is judged by the first line that parses: with no such line the
//    file is an "empty session file", and when that line is not a session header the file is left untouched with a
//    warning ("invalid session header"); neither is repaired. A file with a valid header and dropped lines is
//    repaired: a backup `<file>.bak-<pid>-<time>` of the old text, the kept lines in a temporary file
//    `<file>.repair-<pid>-<time>.tmp`, renamed over the file. A missing file, or one with nothing dropped, stays.
// 2. hadSessionFile: whether the file exists before the SessionManager opens it.
// 3. SessionManager.open: pi truncates an empty file, or one with no valid header, to a fresh header line.
// 4. prepareSessionManagerForRun (`src/agents/pi-embedded-runner/session-manager-init.ts`): pi marks a loaded file
//    flushed even when it holds no assistant message, its next non-assistant append unmarks it, and the first
//    assistant message then appends every in-memory line again (two headers, repeated entries). So when the file
//    existed and holds no assistant message, OpenClaw empties it and takes the in-memory entries back to the header
//    alone: the first assistant message writes header and entries once.
// The model fsyncs what it writes here, as the runner fsyncs every transcript write; OpenClaw does not. And the fixed
// runner goes one step further than OpenClaw: a last line that a power loss tore just short of its newline parses,
// so the repair keeps it, and pi's next append (which never checks for a final newline) would land on the same line,
// which the next repair then drops with both entries in it. The runner ends such a line before it opens the file
// (`endTornLastLine`); what studies OpenClaw as it is (sim/real's seed-003 experiment) leaves it.
import { assert } from './assert.ts';
import type { Disk, ProcessContext } from './ports.ts';
import { blank, malformed, readLine, readLines } from './line-memo.ts';
import { isSessionHeader } from './pi-format.ts';
import type { SessionManagerFactory, SessionManagerPort } from './session-manager-port.ts';
import { replaceSessionFile } from './session-file-replace.ts';

export { replaceSessionFile };

/** What the repair step did, with OpenClaw's reasons for leaving a file as it is. */
export type SessionFileRepair =
  /** `backupPath` null: the backup was removed after the repair (OpenClaw 2026.7.1 does; the model and 2026.4.24 keep it). */
  | { repaired: true; droppedLines: number; backupPath: string | null }
  | {
      repaired: false;
      droppedLines: number;
      /** The model's reasons are the first three; a real release may also fail to read or to replace the file. */
      reason?: 'missing session file' | 'empty session file' | 'invalid session header' | `failed to read session file: ${string}` | `repair failed: ${string}`;
      /** The file is clean but its last line lacks its newline (OpenClaw does not look; the runner ends the line). */
      unterminated?: true;
    };

/** OpenClaw's repairSessionFileIfNeeded on the simulated disk; `pid` and `nowMs` name the backup. */
export async function repairSessionFileIfNeeded(disk: Disk, path: string, pid: number, nowMs: number): Promise<SessionFileRepair> {
  const content = await disk.read(path);
  if (content === undefined) return { repaired: false, droppedLines: 0, reason: 'missing session file' };
  const kept: unknown[] = [];
  let droppedLines = 0;
  // Split on \r?\n as OpenClaw does; a text without \r splits there as on \n, which readLines remembers.
  const read = readLines(content);
  for (const line of read.carriageReturn ? content.split(/\r?\n/).map(readLine) : read.lines) {
    if (line === malformed) droppedLines++;
    else if (line !== blank) kept.push(line);
  }
  const first = kept[0];
  if (first === undefined) return { repaired: false, droppedLines, reason: 'empty session file' };
  if (!isSessionHeader(first) || first.id.length === 0) return { repaired: false, droppedLines, reason: 'invalid session header' };
  if (droppedLines === 0) return content.endsWith('\n') ? { repaired: false, droppedLines } : { repaired: false, droppedLines, unterminated: true };
  assert(droppedLines > 0, `a repair of ${path} drops a line`);
  const cleaned = `${kept.map((entry) => JSON.stringify(entry)).join('\n')}\n`;
  const backupPath = await replaceSessionFile(disk, path, cleaned, pid, nowMs);
  assert(backupPath.startsWith(`${path}.bak-`), `the backup of ${path} is beside it, not ${backupPath}`);
  return { repaired: true, droppedLines, backupPath };
}


/**
 * OpenClaw's prepareSessionManagerForRun for a file that existed: with no assistant message in it, the file is
 * emptied and the SessionManager taken back to its header, unflushed. Returns whether it did so.
 */
export async function prepareSessionManagerForRun(disk: Disk, session: SessionManagerPort, hadSessionFile: boolean): Promise<boolean> {
  if (!hadSessionFile) return false;
  if (session.allEntries().some((entry) => entry.message.role === 'assistant')) return false;
  await disk.write(session.path, '');
  await disk.fsync(session.path);
  session.resetToHeader();
  assert(session.allEntries().length === 0, `${session.path} holds no entry after its reset`);
  assert(session.leaf === undefined, `${session.path} has no leaf after its reset`);
  return true;
}

export interface OpenedSession {
  session: SessionManagerPort;
  repair: SessionFileRepair;
  /** prepareSessionManagerForRun emptied the file (it existed and held no assistant message). */
  reset: boolean;
}

/**
 * The repair step in place of the model's repairSessionFileIfNeeded (sim/real: a pinned OpenClaw release's, `--openclaw
 * <release>:session-file-repair`). It reports `unterminated` as the model's does, for the fixed runner's step beyond.
 */
export interface SessionFileRepairPort {
  repair(path: string): Promise<SessionFileRepair>;
}

export interface OpenOptions {
  /** Beyond OpenClaw (the fixed runner): end a last line that lacks its newline, and fsync the file, before the open. */
  endTornLastLine?: boolean;
  /** The repair step (default: the model's repairSessionFileIfNeeded). */
  repair?: SessionFileRepairPort;
}

/** Repair, open and prepare the session file at `path`, as a run attempt does (the caller holds the lock). */
export async function openSessionForRun(ctx: ProcessContext, factory: SessionManagerFactory, path: string, options: OpenOptions = {}): Promise<OpenedSession> {
  const repair = options.repair === undefined ? await repairSessionFileIfNeeded(ctx.disk, path, ctx.incarnation, ctx.clock.nowMs()) : await options.repair.repair(path);
  // The repair never creates or removes the file, so what it read says whether the file was there.
  const hadSessionFile = repair.repaired || repair.reason !== 'missing session file';
  if (options.endTornLastLine === true && !repair.repaired && repair.unterminated === true) {
    // Beyond OpenClaw: end a last line torn just short of its newline, so pi's next append starts a line of its own.
    await ctx.disk.append(path, '\n');
  }
  // Beyond OpenClaw (the fixed runner): what a killed predecessor appended may still be only in the page cache (the
  // kill fell between its append and its fsync); synced now, before this attempt acts on it, a power loss cannot take
  // back what a resumed turn then sends (chaos seed 3: a reply shown from a resumed turn, its entries lost 4 s later).
  if (options.endTornLastLine === true && !repair.repaired && hadSessionFile) await ctx.disk.fsync(path);
  const session = await factory(ctx, path);
  assert(session.path === path, `the session opened for ${path} is ${session.path}`);
  const reset = await prepareSessionManagerForRun(ctx.disk, session, hadSessionFile);
  return { session, repair, reset };
}
