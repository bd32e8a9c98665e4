// Coverage of client connections (issue 24 item 1): where the faults met the WebChat client's WebSocket. Labels only,
// from the model's notes and the kernel's events; no verdict rests on them.
import type { TraceEvent } from '../kernel/trace.ts';

/**
 * The client's WebSocket died (a reset, a drop that broke it, a gateway kill) while a chat.send had no answer yet
 * (`before-ack`), while a written `chat` final had not reached the client (`mid-stream`), or after a final was shown
 * over it (`after-final`); a chat.send written again with its key (`client-retry`); a repeated key the gateway answered
 * without a new row (`client-dedupe`); a resume that replayed finals the client had missed (`client-replay`).
 */
export const clientShapes = ['client-drop-before-ack', 'client-drop-mid-stream', 'client-drop-after-final', 'client-retry', 'client-dedupe', 'client-replay'] as const;
export type ClientShape = (typeof clientShapes)[number];

const webchat = 'webchat';

export class ClientShapes {
  private seen = false;
  /** chat.send keys written and not answered yet, and whether a drop already met each (each send is counted once). */
  private readonly unanswered = new Map<string, boolean>();
  /** Finals written and not shown yet, by `<connection>:<session>:<seq>`. */
  private readonly inFlight = new Set<string>();
  private shownOverConnection = false;

  observe(event: TraceEvent): ClientShape[] {
    const fields = event.fields;
    switch (event.kind) {
      case 'model.client-send':
        this.seen = true;
        if (!this.unanswered.has(String(fields.key))) this.unanswered.set(String(fields.key), false);
        return Number(fields.attempt) > 1 ? ['client-retry'] : [];
      case 'model.client-answer':
        this.unanswered.delete(String(fields.key));
        return [];
      case 'model.chat-send':
        return Number(fields.inserted) === 0 ? ['client-dedupe'] : [];
      case 'model.chat-final':
        this.inFlight.add(`${String(fields.connection)}:${String(fields.session)}:${String(fields.seq)}`);
        return [];
      case 'model.client-shown':
        this.inFlight.delete(`${String(fields.connection)}:${String(fields.session)}:${String(fields.seq)}`);
        this.shownOverConnection = true;
        return [];
      case 'model.chat-replay':
        return Number(fields.count) > 0 ? ['client-replay'] : [];
      case 'net.reset':
        return fields.a === webchat || fields.b === webchat ? this.drop() : [];
      case 'proc.kill':
        return fields.name === 'gateway' && this.seen ? this.drop() : [];
      default:
        return [];
    }
  }

  private drop(): ClientShape[] {
    const shapes: ClientShape[] = [];
    // Under a high drop rate the kernel's reconnects fail again and again; a send is counted at the first that met it.
    if ([...this.unanswered.values()].some((met) => !met)) shapes.push('client-drop-before-ack');
    for (const key of this.unanswered.keys()) this.unanswered.set(key, true);
    if (this.inFlight.size > 0) shapes.push('client-drop-mid-stream');
    if (this.shownOverConnection) shapes.push('client-drop-after-final');
    // What was in flight died with the connection; a send not answered stays unanswered until it is.
    this.inFlight.clear();
    this.shownOverConnection = false;
    return shapes;
  }
}
