// Coverage of the submitted prompt and the stored one (issue 24 item 4, src/envelope.ts): where the faults met an
// enveloped prompt entry that waited for its rewrite. Labels only, from the model's notes and the kernel's events; no
// verdict rests on them.
import type { TraceEvent } from '../kernel/trace.ts';

/**
 * A prompt entry stored as submitted was rewritten to the plain prompt after its model call returned
 * (`envelope-rewritten`); the runner was killed, or the machine's power lost, while an enveloped entry waited for its
 * rewrite (`envelope-kill`); a later attempt opened the transcript and found an enveloped entry left unrewritten as its
 * leaf, by a failed call or a kill (`envelope-met`).
 */
export const envelopeShapes = ['envelope-rewritten', 'envelope-kill', 'envelope-met'] as const;
export type EnvelopeShape = (typeof envelopeShapes)[number];

export class EnvelopeShapes {
  /** Sessions whose enveloped prompt entry waits for its rewrite. */
  private readonly waiting = new Set<string>();

  observe(event: TraceEvent): EnvelopeShape[] {
    switch (event.kind) {
      case 'model.prompt-enveloped':
        this.waiting.add(String(event.fields.session));
        return [];
      case 'model.prompt-rewritten':
        this.waiting.delete(String(event.fields.session));
        return ['envelope-rewritten'];
      case 'model.envelope-met':
        return ['envelope-met'];
      case 'proc.kill':
        return event.fields.name === 'runner' ? this.killed() : [];
      case 'fault':
        return event.fields.kind === 'power-loss' ? this.killed() : [];
      default:
        return [];
    }
  }

  /** The runner died: every entry that waited is left as submitted (counted once per death). */
  private killed(): EnvelopeShape[] {
    if (this.waiting.size === 0) return [];
    this.waiting.clear();
    return ['envelope-kill'];
  }
}
