// The static import closure of a chunk of a pinned release: which chunks a component's loading links and which bare
// packages (dependencies of the release, not its own chunks) it imports, each with the first chunk found importing it.
// A measuring tool for the loader's next step (loading the release's dependencies): it reads and parses chunks only,
// runs nothing. Dynamic `import()` is not followed (those load on use, not at link time).
import { readReleaseChunk } from '../openclaw-hooks.mjs';
import { parseChunk } from './chunks.ts';
import type { OpenclawRelease } from './releases.ts';

export interface ChunkClosure {
  /** Chunks under dist/ the closure links, in discovery order (the start chunk first). */
  chunks: string[];
  /** Bare package specifiers (not `node:` built-ins), in discovery order, each with the first chunk importing it. */
  packages: { specifier: string; importedBy: string }[];
}

function resolveRelative(from: string, specifier: string): string {
  const parts = from.split('/').slice(0, -1);
  for (const part of specifier.split('/')) {
    if (part === '.' || part === '') continue;
    if (part === '..') parts.pop();
    else parts.push(part);
  }
  return parts.join('/');
}

export function chunkClosure(release: OpenclawRelease, start: string): ChunkClosure {
  const seen = new Set<string>();
  const packages = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const file = queue.shift() as string;
    if (seen.has(file)) continue;
    seen.add(file);
    const parsed = parseChunk(readReleaseChunk(release, file));
    for (const { specifier } of [...parsed.imports, ...parsed.starExports]) {
      if (specifier.startsWith('./') || specifier.startsWith('../')) queue.push(resolveRelative(file, specifier));
      else if (!specifier.startsWith('node:') && !packages.has(specifier)) packages.set(specifier, file);
    }
  }
  return { chunks: [...seen], packages: [...packages].map(([specifier, importedBy]) => ({ specifier, importedBy })) };
}
