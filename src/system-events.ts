// The per-session system-event queue (OpenClaw src/infra/system-events.ts). In memory only: a gateway restart
// loses queued events on purpose. At most 20 events per session; past that the oldest is dropped. Enqueue trims
// the text and refuses empty text. Drain returns every event, clears the queue and forgets the last text.
//
// Dedupe: seed 000's buggy rule refuses only a text equal to the last enqueued text, so after a drain the same
// text is accepted again; the fixed rule compares against every queued entry by (text, contextKey).
//
// Rendering (OpenClaw src/auto-reply/reply/session-system-events.ts): each drained event becomes `System: ` lines
// (`System (untrusted): ` for an untrusted one), one per line of its text, so a continuation line cannot pass for user
// content; only the first line carries the event's timestamp. Heartbeat noise (the heartbeat prompt itself,
// `heartbeat poll`/`heartbeat wake` lines, `reason periodic` lines) is left out of the block.
import { assert } from './assert.ts';
import type { Clock } from './ports.ts';

export const systemEventsPerSessionMax = 20;

export interface SystemEvent {
  text: string;
  ts: number;
  contextKey: string | null;
  trusted: boolean;
  /** Acknowledgements to send once the event is durably part of a prompt (fixed model). */
  onDurable: (() => void)[];
  /** Dedupe key of an exec event (`<sessionKey>::<runId>`), recorded durably when drained. */
  execKey: string | null;
}

interface SessionQueue {
  queue: SystemEvent[];
  lastText: string | null;
}

export type EnqueueResult = { queued: true; event: SystemEvent } | { queued: false; duplicateOf: SystemEvent | null };

/**
 * What the gateway asks of a system-event queue: the model's own (below), or a real release's wrapped by sim/real
 * (`--openclaw`), which keeps the model's acknowledgement hooks beside the real queue's events.
 */
export interface SystemEventQueuePort {
  enqueueSystemEvent(sessionKey: string, text: string, options: { contextKey: string | null; trusted?: boolean; execKey: string | null }): EnqueueResult;
  peek(sessionKey: string): readonly SystemEvent[];
  drainSystemEvents(sessionKey: string): SystemEvent[];
  requeue(sessionKey: string, events: SystemEvent[]): void;
}

export class SystemEventQueue implements SystemEventQueuePort {
  private readonly sessions = new Map<string, SessionQueue>();

  constructor(
    private readonly clock: Clock,
    /** seed 000: dedupe only against the last enqueued text. */
    private readonly lastTextOnlyDedupe: boolean,
  ) {}

  enqueueSystemEvent(
    sessionKey: string,
    text: string,
    /** trusted defaults to true, as in OpenClaw; node events pass false. */
    options: { contextKey: string | null; trusted?: boolean; execKey: string | null },
  ): EnqueueResult {
    assert(sessionKey.length > 0, 'a system event for an unnamed session');
    const cleaned = text.trim();
    if (cleaned.length === 0) return { queued: false, duplicateOf: null };
    const entry = this.session(sessionKey);
    const contextKey = options.contextKey === null ? null : options.contextKey.toLowerCase();
    if (this.lastTextOnlyDedupe) {
      // seed 000 (exec-replay): only a repeat of the last text is refused; a drain forgets it.
      if (entry.lastText === cleaned) return { queued: false, duplicateOf: entry.queue.at(-1) ?? null };
    } else {
      const duplicate = entry.queue.find((event) => event.text === cleaned && event.contextKey === contextKey);
      if (duplicate !== undefined) return { queued: false, duplicateOf: duplicate };
    }
    const event: SystemEvent = {
      text: cleaned,
      ts: this.clock.nowMs(),
      contextKey,
      trusted: options.trusted ?? true,
      onDurable: [],
      execKey: options.execKey,
    };
    entry.queue.push(event);
    if (entry.queue.length > systemEventsPerSessionMax) entry.queue.shift();
    assert(entry.queue.length <= systemEventsPerSessionMax, `the system-event queue of ${sessionKey} holds ${entry.queue.length} events`);
    assert(entry.queue.at(-1) === event, `the event queued for ${sessionKey} is last in its queue`);
    entry.lastText = cleaned;
    return { queued: true, event };
  }

  /** The queued events, without draining (inspection only). */
  peek(sessionKey: string): readonly SystemEvent[] {
    return this.sessions.get(sessionKey)?.queue ?? [];
  }

  drainSystemEvents(sessionKey: string): SystemEvent[] {
    const entry = this.sessions.get(sessionKey);
    if (entry === undefined) return [];
    const drained = entry.queue;
    assert(drained.length <= systemEventsPerSessionMax, `${drained.length} events drained from ${sessionKey}, above the bound`);
    entry.queue = [];
    entry.lastText = null;
    return drained;
  }

  /** Put events back at the front after a failed drain (the prompt was not persisted). */
  requeue(sessionKey: string, events: SystemEvent[]): void {
    const entry = this.session(sessionKey);
    assert(events.length <= systemEventsPerSessionMax, `${events.length} events requeued for ${sessionKey}, above the bound`);
    entry.queue = [...events, ...entry.queue].slice(-systemEventsPerSessionMax);
  }

  private session(sessionKey: string): SessionQueue {
    let entry = this.sessions.get(sessionKey);
    if (entry === undefined) {
      entry = { queue: [], lastText: null };
      this.sessions.set(sessionKey, entry);
    }
    return entry;
  }
}

/** OpenClaw's compactSystemEvent: the event's text trimmed, or null for heartbeat noise (left out of the block). */
export function compactSystemEvent(text: string): string | null {
  const trimmed = text.trim();
  const lower = trimmed.toLowerCase();
  if (trimmed.length === 0 || lower.includes('reason periodic') || lower.startsWith('read heartbeat.md')) return null;
  if (lower.includes('heartbeat poll') || lower.includes('heartbeat wake')) return null;
  return trimmed;
}

/** An exec completion (`Exec finished …`): its heartbeat gets the exec-event prompt instead of the heartbeat prompt. */
export function isExecCompletionEvent(text: string): boolean {
  return /^exec finished(?::|\s*\()/i.test(text.trimStart());
}

/** Render drained events before the body of the prompt: a prefix on every line, the timestamp on the first only. */
export function formatSystemEvents(events: readonly SystemEvent[]): string {
  return events
    .flatMap((event) => {
      const compacted = compactSystemEvent(event.text);
      if (compacted === null) return [];
      const prefix = event.trusted ? 'System' : 'System (untrusted)';
      return compacted.split('\n').map((line, index) => `${prefix}: ${index === 0 ? `[${event.ts}] ` : ''}${line}`);
    })
    .join('\n');
}
