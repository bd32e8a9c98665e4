// The oracle is black-box (DESIGN.md section 5): no checker decides a verdict from what the system under test says
// about itself. This tidy test scans every file under sim/checkers/ (comments stripped) for the model's own ids and
// bookkeeping: the `turn_id` column, the `turnId` field, inbound row ids (`in:<delivery>`, `sys:`), the model's
// inbound/outbound tables, the runner's claims (a message the system says it failed or took as context is judged by
// what the user saw, never by the system's word), and its trace notes (`model.<kind>` events, the `notes(` reader). Trace notes may trigger a
// check, which the harness (sim/run) does; the checkers never read them. The checkers may read the kernel's own
// events (proc.kill, proc.exit) and place violations on the timeline by trace index.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const checkersDir = fileURLToPath(new URL('../sim/checkers/', import.meta.url));

const banned: { name: string; pattern: RegExp }[] = [
  { name: 'the turn_id column', pattern: /\bturn_id\b/ },
  { name: 'the turnId field', pattern: /\bturnId\b/ },
  { name: 'an inbound row id', pattern: /['"`](?:in|sys):/ },
  { name: "the model's inbound table", pattern: /\bmessages_in\b|\bmerged_into\b|\binboundPath\b/ },
  { name: "the model's outbound table", pattern: /\bmessages_out\b|\boutboundPath\b|\bin_reply_to\b/ },
  { name: "the runner's claims", pattern: /\bprocessing_ack\b|\bturn_claims\b|\btrigger\s*=/ },
  { name: 'a model trace note', pattern: /['"`]model\.|\bnotes\s*\(/ },
  { name: "the model's objects", pattern: /\bBuiltModel\b|\bprocesses\s*:/ },
];

function stripComments(source: string): string {
  return source.replace(/\/\*[\s\S]*?\*\//g, (block) => block.replace(/[^\n]/g, ' ')).replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
}

export function findLeaks(source: string): string[] {
  const code = stripComments(source);
  return banned.filter((rule) => rule.pattern.test(code)).map((rule) => rule.name);
}

describe('the oracle is black-box', () => {
  const files = readdirSync(checkersDir).filter((name) => name.endsWith('.ts'));

  it('scans every checker file', () => {
    expect(files).toEqual(expect.arrayContaining(['replies.ts', 'ingestion.ts', 'liveness.ts', 'transcript.ts', 'attribution.ts', 'durable.ts']));
  });

  it.each(files)('%s reads none of the model\'s own ids, tables or notes', (name) => {
    expect(findLeaks(readFileSync(join(checkersDir, name), 'utf8'))).toEqual([]);
  });

  it('catches each kind of leak (the scan can fail)', () => {
    expect(findLeaks("const rows = inspect(path, 'SELECT turn_id FROM messages');")).toEqual(['the turn_id column']);
    expect(findLeaks('if (entry.turnId === reply.turnId) count++;')).toEqual(['the turnId field']);
    expect(findLeaks("const id = `in:${deliveryId}`;")).toEqual(['an inbound row id']);
    expect(findLeaks("inspect(inboundPath(session), 'SELECT merged_into FROM messages_in')")).toEqual(["the model's inbound table"]);
    expect(findLeaks("events.filter((event) => event.kind === 'model.answer')")).toEqual(['a model trace note']);
    expect(findLeaks("inspect(path, \"SELECT message_id FROM processing_ack WHERE status = 'failed'\")")).toEqual(["the runner's claims"]);
    expect(findLeaks('// a comment may say turnId and model.answer\nconst x = 1;')).toEqual([]);
  });
});
