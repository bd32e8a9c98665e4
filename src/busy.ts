// "database is locked" is an expected, transient fault; every other error is a bug and must crash the process.
import type { ProcessContext } from './ports.ts';

export function isBusy(error: unknown): boolean {
  return error instanceof Error && error.name === 'SqliteBusyError';
}

/** A write whose failure is harmless (it is retried later anyway): a busy error yields undefined. */
export async function ignoreBusy<T>(write: Promise<T>): Promise<T | undefined> {
  try {
    return await write;
  } catch (error) {
    if (isBusy(error)) return undefined;
    throw error;
  }
}

/** Retry a write that failed with "database is locked", at most 20 times with a growing pause. */
export async function retryBusy<T>(ctx: ProcessContext, write: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await write();
    } catch (error) {
      if (!isBusy(error) || attempt >= 20) throw error;
      await ctx.timers.sleep(50 * attempt);
    }
  }
}
