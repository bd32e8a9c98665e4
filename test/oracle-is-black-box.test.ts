// The oracle is black-box (docs/ARCHITECTURE.md section 5): no checker decides a verdict from what the system under
// test says about itself. This tidy test scans every file under sim/checkers/ (comments stripped) for the model's own
// ids and bookkeeping: the `turn_id` column, the `turnId` field, inbound row ids (`in:<delivery>`, `sys:`), the model's
// inbound/outbound tables, the runner's claims (a message the system says it failed or took as context is judged by
// what the user saw, never by the system's word), and its trace notes (`model.<kind>` events, the `notes(` reader). Trace notes may trigger a
// check, which the harness (sim/run) does; the checkers never read them. The checkers may read the kernel's own
// events (proc.kill, proc.exit) and place violations on the timeline by trace index.
// The judge also shares no code with the accused (docs/ARCHITECTURE.md sections 1 and 5, issue 23): no file under
// sim/checkers/ imports anything from src/ (not even a type; a checker that needs one defines its own), and no chain of
// value imports from a checker reaches src/ through another room (the world's ledger types may name the protocol's
// types; they are erased and run nothing).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
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

const root = fileURLToPath(new URL('../', import.meta.url));

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? tsFiles(path) : path.endsWith('.ts') || path.endsWith('.mts') ? [path] : [];
  });
}

/** A relative import of a file: its repository-relative target and whether only types come through it. */
export interface ImportOf {
  target: string;
  typeOnly: boolean;
}

/** Every relative import, re-export, dynamic import and require of a source file (comments stripped). */
export function relativeImports(file: string, source: string): ImportOf[] {
  const code = stripComments(source);
  const out: ImportOf[] = [];
  const at = (specifier: string): string => relative(root, resolve(dirname(file), specifier));
  for (const match of code.matchAll(/\b(import|export)\s+(type\s+)?(\{[^}]*\}|\*(?:\s+as\s+\w+)?|\w+(?:\s*,\s*\{[^}]*\})?)\s*from\s*['"](\.{1,2}\/[^'"]+)['"]/g)) {
    const clause = match[3] ?? '';
    const names = clause.startsWith('{') ? clause.slice(1, -1).split(',').map((name) => name.trim()).filter((name) => name.length > 0) : [];
    const typeOnly = match[2] !== undefined || (names.length > 0 && names.every((name) => name.startsWith('type ')));
    out.push({ target: at(match[4] ?? ''), typeOnly });
  }
  for (const match of code.matchAll(/(?:\bimport\s*\(|\brequire\s*\(|\bimport\s+)\s*['"](\.{1,2}\/[^'"]+)['"]/g)) out.push({ target: at(match[1] ?? ''), typeOnly: false });
  return out;
}

/** The imports of sim/checkers/ files that reach src/: direct ones of any kind, and value chains through other rooms. */
export function srcReach(entries: readonly string[], read: (file: string) => string | undefined): string[] {
  const found: string[] = [];
  for (const entry of entries) {
    const from = relative(root, entry);
    for (const { target } of relativeImports(entry, read(entry) ?? '')) if (target.startsWith('src/')) found.push(`${from} imports ${target}`);
  }
  // Value imports only, followed to the end: a chain through the world or the kernel into src/ runs the accused's code.
  const seen = new Set<string>();
  const queue = entries.map((entry) => ({ file: entry, via: [relative(root, entry)] }));
  while (queue.length > 0) {
    const { file, via } = queue.shift() as { file: string; via: string[] };
    const source = seen.has(file) ? undefined : read(file);
    seen.add(file);
    if (source === undefined) continue;
    for (const { target, typeOnly } of relativeImports(file, source)) {
      if (typeOnly) continue;
      if (target.startsWith('src/')) {
        if (via.length > 1) found.push(`${via.join(' -> ')} -> ${target}`);
        continue;
      }
      queue.push({ file: join(root, target), via: [...via, target] });
    }
  }
  return found;
}

describe('the judge shares no code with the accused', () => {
  const checkerFiles = tsFiles(checkersDir);
  const read = (file: string): string | undefined => (existsSync(file) ? readFileSync(file, 'utf8') : undefined);

  it('no checker file imports src/, and no value import of a checker reaches it through another room', () => {
    expect(checkerFiles.length).toBeGreaterThan(10);
    expect(srcReach(checkerFiles, read)).toEqual([]);
  });

  it('catches each way in (the scan can fail)', () => {
    const file = join(checkersDir, 'probe.ts');
    const world = join(root, 'sim/world/probe.ts');
    const sources = new Map<string, string>([
      [file, "import { parseMessageBlocks } from '../../src/index.ts';\nimport type { LlmToolCall } from '../../src/ports.ts';\nexport { errorReply } from '../../src/turn.ts';\nconst m = await import('../../src/text.ts');\nimport { helper } from '../world/probe.ts';\nimport type { Ledger } from '../world/ledger.ts';"],
      [world, "import { contentHash } from '../../src/text.ts';\nexport const helper = 1;"],
    ]);
    const probe = (path: string): string | undefined => sources.get(path) ?? read(path);
    expect(srcReach([file], probe)).toEqual([
      'sim/checkers/probe.ts imports src/index.ts',
      'sim/checkers/probe.ts imports src/ports.ts',
      'sim/checkers/probe.ts imports src/turn.ts',
      'sim/checkers/probe.ts imports src/text.ts',
      'sim/checkers/probe.ts -> sim/world/probe.ts -> src/text.ts',
    ]);
    expect(srcReach([file], (path) => (path === file ? '// from \'../../src/index.ts\'\nimport type { Ledger } from \'../world/ledger.ts\';' : read(path)))).toEqual([]);
  });
});
