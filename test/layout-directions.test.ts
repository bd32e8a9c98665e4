// The layout shows the architecture (docs/ARCHITECTURE.md section 1), and this tidy test holds its dependency
// directions: the kernel knows only the ports (src/ports.ts), never the model, a checker or the command line; the world
// uses the kernel and the protocol the model speaks; the checkers read the ledger and the durable state and import no
// part of the command line, of one run's harness or of src/; scenarios import only the plan types; src/ never imports
// sim/ or scenarios/; the library (lib/) re-exports the parts and never the command line; an example imports gatesim
// only as a package. Only relative imports are followed (npm packages are free).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../', import.meta.url));

function files(dir: string): string[] {
  return readdirSync(join(root, dir)).flatMap((name) => {
    const path = join(dir, name);
    return statSync(join(root, path)).isDirectory() ? files(path) : path.endsWith('.ts') ? [path] : [];
  });
}

/** Repository-relative targets of a file's relative imports and re-exports. */
export function importsOf(file: string, source: string): string[] {
  const code = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  return [...code.matchAll(/(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g)].map((match) => relative(root, resolve(dirname(join(root, file)), match[1] ?? '')));
}

/** Each rule: files under `from` may import (relatively) only paths that start with one of `allowed`. */
const rules: { from: string; allowed: string[] }[] = [
  { from: 'sim/kernel/', allowed: ['sim/kernel/', 'src/ports.ts'] },
  { from: 'sim/world/', allowed: ['sim/world/', 'sim/kernel/', 'src/ports.ts', 'src/protocol.ts', 'src/config.ts', 'src/text.ts'] },
  // The judge shares no code with the accused: no import from src/ at all (docs/ARCHITECTURE.md sections 1 and 5).
  { from: 'sim/checkers/', allowed: ['sim/checkers/', 'sim/kernel/', 'sim/world/'] },
  { from: 'sim/run/', allowed: ['sim/run/', 'sim/kernel/', 'sim/world/', 'sim/checkers/', 'sim/real/', 'src/index.ts', 'scenarios/index.ts'] },
  { from: 'scenarios/', allowed: ['scenarios/', 'sim/run/plan.ts', 'src/index.ts'] },
  { from: 'src/', allowed: ['src/'] },
  // The library's public entry re-exports the parts a gateway engineer needs, and the fuzz driver and seed strings of
  // the command line, never the command line itself (main.ts, load.ts).
  {
    from: 'lib/',
    allowed: ['lib/', 'src/', 'scenarios/', 'sim/kernel/', 'sim/world/', 'sim/run/', 'sim/checkers/', 'sim/cli/fuzz.ts', 'sim/cli/seed-string.ts', 'sim/cli/report.ts', 'sim/cli/real.ts'],
  },
  // An example is what a user copies: it reaches gatesim only through the package ('gatesim', 'gatesim/vitest').
  { from: 'examples/', allowed: ['examples/'] },
];

export function breaches(file: string, targets: readonly string[]): string[] {
  const rule = rules.find((candidate) => file.startsWith(candidate.from));
  if (rule === undefined) return [];
  return targets.filter((target) => !rule.allowed.some((prefix) => target.startsWith(prefix)));
}

describe('dependency directions', () => {
  const all = [...files('sim'), ...files('src'), ...files('scenarios'), ...files('lib'), ...files('examples')];

  it('covers every room', () => {
    for (const room of ['sim/kernel/', 'sim/world/', 'sim/run/', 'sim/checkers/', 'sim/cli/', 'scenarios/', 'src/', 'lib/', 'examples/']) {
      expect(all.some((file) => file.startsWith(room)), room).toBe(true);
    }
  });

  it.each(all)('%s imports only what its room may', (file) => {
    expect(breaches(file, importsOf(file, readFileSync(join(root, file), 'utf8')))).toEqual([]);
  });

  it('catches a breach (the rule can fail)', () => {
    expect(breaches('sim/kernel/network.ts', importsOf('sim/kernel/network.ts', "import type { Delivery } from '../../src/index.ts';"))).toEqual(['src/index.ts']);
    expect(breaches('sim/checkers/replies.ts', importsOf('sim/checkers/replies.ts', "import { x } from '../cli/report.ts';"))).toEqual(['sim/cli/report.ts']);
    expect(breaches('sim/checkers/attribution.ts', importsOf('sim/checkers/attribution.ts', "import type { LlmToolCall } from '../../src/ports.ts';"))).toEqual(['src/ports.ts']);
    expect(breaches('src/turn.ts', importsOf('src/turn.ts', "import { y } from '../sim/world/ledger.ts';"))).toEqual(['sim/world/ledger.ts']);
    expect(breaches('examples/gateway-suite/scenarios.ts', importsOf('examples/gateway-suite/scenarios.ts', "import { fc } from '../../lib/index.ts';"))).toEqual(['lib/index.ts']);
    expect(breaches('lib/index.ts', importsOf('lib/index.ts', "export { main } from '../sim/cli/main.ts';"))).toEqual(['sim/cli/main.ts']);
  });
});
