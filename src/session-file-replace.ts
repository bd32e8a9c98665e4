// Replacing a session file whole, as OpenClaw's session-file repair does (src/agents/session-file-repair.ts): shared by
// the repair step and by the SessionManager's rewrites, in a module of its own so neither imports the other.
import { assert, assertNonNegativeInteger } from './assert.ts';
import type { Disk } from './ports.ts';

/**
 * Replace a session file the way the repair step does: a backup of the current text (none when there is no file),
 * then the new text in a temporary file renamed over it, so the file is never half written. Returns the backup path.
 */
export async function replaceSessionFile(disk: Disk, path: string, text: string, pid: number, nowMs: number): Promise<string> {
  const current = await disk.read(path);
  assertNonNegativeInteger(nowMs, `the replace time of ${path}`);
  assert(text.endsWith('\n'), `a replaced session file ${path} ends its last line`);
  const backupPath = `${path}.bak-${pid}-${nowMs}`;
  if (current !== undefined) {
    await disk.write(backupPath, current);
    await disk.fsync(backupPath);
  }
  const temporary = `${path}.repair-${pid}-${nowMs}.tmp`;
  await disk.write(temporary, text);
  await disk.fsync(temporary);
  await disk.rename(temporary, path);
  return backupPath;
}
