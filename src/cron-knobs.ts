// The knob `cron` (issue 48 item 5; cron-executor.ts): kept apart so config.ts names it without importing the executor.

/**
 * How the executor treats an answer that comes after its occurrence already has one: `fixed` reconciles it with the
 * occurrence (dropped); `retry-blind` (tests only) runs it as output of its own, as OpenClaw's cron lets a timed-out
 * run go on beside its retry (openclaw/openclaw#137215), so the task's output lands twice.
 */
export const cronModes = ['fixed', 'retry-blind'] as const;
export type CronMode = (typeof cronModes)[number];

/** The knob `cron`: scheduled tasks run by the gateway's executor, outside the chat lane. */
export interface CronKnobs {
  mode: CronMode;
  /** The wall-clock timeout of one attempt (OpenClaw `payload.timeoutSeconds`). */
  timeoutMs: number;
  /** The waits before the 2nd, 3rd, ... attempt (OpenClaw `cron.retry.backoffMs`, default 30 s, 1 min, 5 min); the last repeats. */
  backoffMs: number[];
  /** How many attempts the executor makes before it hands the occurrence to the chat lane (OpenClaw: 1 + 3 retries). */
  attemptsMax: number;
}
