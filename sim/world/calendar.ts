// A simulated external service the agent's tools act on (issue 23 item 3): a calendar, part of the world, never
// killed. The tool server asks it to create an event with an idempotency key (as a client-chosen event id: a second
// insert with an id that exists creates nothing and answers as the first did); it creates the event, records the
// effect in the ground-truth ledger, and confirms over the network. A request with a key it has seen is confirmed
// again and changes nothing. What the calendar created is what happened in the world, whatever the system believes.
import type { ProcessContext } from '../../src/ports.ts';
import type { EventCreatedMessage, EventCreateMessage } from '../../src/protocol.ts';
import type { Ledger } from './ledger.ts';

export class CalendarService {
  private readonly keys = new Set<string>();

  constructor(
    readonly name: string,
    private readonly ledger: Ledger,
  ) {}

  async main(ctx: ProcessContext): Promise<void> {
    for (;;) {
      const delivery = await ctx.net.receive();
      const request = delivery.payload as Partial<EventCreateMessage>;
      if (request.type !== 'event.create' || typeof request.key !== 'string' || typeof request.text !== 'string' || typeof request.sessionKey !== 'string') continue;
      if (!this.keys.has(request.key)) {
        this.keys.add(request.key);
        this.ledger.effectTaken({ sessionKey: request.sessionKey, service: this.name, key: request.key, text: request.text, atMs: ctx.clock.nowMs() });
        ctx.note('effect', { service: this.name, session: request.sessionKey, key: request.key, text: request.text });
      }
      if (this.keys.size > 100_000) throw new Error(`calendar: ${this.keys.size} events, past any run's bound`);
      ctx.net.send(delivery.from, { type: 'event.created', key: request.key } satisfies EventCreatedMessage);
    }
  }
}
