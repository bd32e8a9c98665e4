// A tidy test: the model's modules (src/) import one another without a circle, type-only imports included, so each
// can be read, tested and replaced from the bottom up (issue 24: model.ts, runner.ts and turn.ts were one circle;
// session-file-repair.ts, session-manager-port.ts and session-manager.ts another).
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';

/** The relative .ts imports (and re-exports) of every .ts file under `root`, as a graph of repository paths. */
function importGraph(root: string): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const name of readdirSync(root, { recursive: true }) as string[]) {
    if (!name.endsWith('.ts')) continue;
    const path = join(root, name);
    const source = readFileSync(path, 'utf8');
    const targets = [...source.matchAll(/^(?:import|export)\b[^;]*?from '(\.{1,2}\/[^']+\.ts)'/gms)].map((match) => normalize(join(dirname(path), match[1] ?? '')));
    graph.set(path, targets.filter((target) => target.startsWith(`${root}/`)));
  }
  return graph;
}

/** Every circle found by a depth-first search, each as the list of files around it. */
function circles(graph: Map<string, string[]>): string[][] {
  const found: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (node: string): void => {
    state.set(node, 'open');
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (state.get(next) === 'open') found.push([...stack.slice(stack.indexOf(next)), next]);
      else if (state.get(next) === undefined) visit(next);
    }
    stack.pop();
    state.set(node, 'done');
  };
  for (const node of [...graph.keys()].sort()) if (state.get(node) === undefined) visit(node);
  return found;
}

describe('src/ import graph', () => {
  it('has no import circle', () => {
    expect(circles(importGraph('src')).map((circle) => circle.join(' -> '))).toEqual([]);
  });

  it('the search finds a circle when there is one', () => {
    const graph = new Map([
      ['src/a.ts', ['src/b.ts']],
      ['src/b.ts', ['src/c.ts']],
      ['src/c.ts', ['src/a.ts']],
    ]);
    expect(circles(graph)).toEqual([['src/a.ts', 'src/b.ts', 'src/c.ts', 'src/a.ts']]);
  });
});
