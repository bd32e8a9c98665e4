// The public API is documented where it is declared: every export of gatesim and gatesim/vitest has TSDoc, and
// docs/API.md is what `npm run docs:api` generates from it (so the page cannot drift from the code).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { apiEntries, apiMarkdown } from './api-doc.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));

describe('the public API', () => {
  const entries = apiEntries();

  it('exports the library builders, the registries, the ports and the vitest helper', () => {
    const names = entries.map((entry) => `${entry.module}:${entry.name}`);
    for (const name of ['gatesim:runScenario', 'gatesim:fuzz', 'gatesim:registerScenario', 'gatesim:registerInvariant', 'gatesim:ProcessContext', 'gatesim:Ledger', 'gatesim/vitest:fuzzIt']) {
      expect(names).toContain(name);
    }
  });

  it('has TSDoc on every export', () => {
    expect(entries.filter((entry) => entry.doc.length === 0).map((entry) => `${entry.module}:${entry.name} (${entry.file})`)).toEqual([]);
  });

  it('is described by docs/API.md as generated (npm run docs:api)', () => {
    expect(readFileSync(`${root}docs/API.md`, 'utf8')).toBe(apiMarkdown(entries));
  });
});
