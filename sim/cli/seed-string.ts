// Seed strings: one copyable token that reproduces a run exactly, in a fresh process or on another machine.
//
//   gs1.<scenario>.<bugs>.<seed>.<path>.<check>
//
// `gs1` is the format version; <bugs> is `none` or bug ids joined by `+`; <seed> is the fast-check seed the plan
// was generated from; <path> is where shrinking went (fast-check's counterexample path, `r` for the first plan of
// the seed); <check> is 8 hex digits of a hash over the header and the plan it regenerates to, so a truncated,
// edited or foreign string is refused instead of silently running something else.
import { type BugId, bugIds, parseBugList, UnknownBugError } from '../../src/index.ts';
import { contentHash } from '../../src/index.ts';
import { findScenario, scenarioNames } from '../../scenarios/index.ts';
import type { RunSpec } from '../run/plan.ts';

export const seedFormatVersion = 'gs1';
const seedMax = 2 ** 31 - 1;

/**
 * A seed string that cannot be replayed: malformed, truncated, edited, of another format, or made by a build whose
 * scenarios differ.
 */
export class SeedStringError extends Error {
  override name = 'SeedStringError';
}

/** What a seed string names: the scenario, the bug set, the fast-check seed and the shrink path. */
export interface SeedHeader {
  scenario: string;
  bugs: BugId[];
  seed: number;
  path: string | undefined;
}

export function canonicalSpec(spec: RunSpec): string {
  return JSON.stringify({ scenario: spec.scenario, bugs: spec.bugs, seed: spec.seed, plan: spec.plan });
}

/** The seed string of a run: the header plus a check over the plan it regenerates to. */
export function encodeSeedString(header: SeedHeader, spec: RunSpec): string {
  const bugs = header.bugs.length === 0 ? 'none' : header.bugs.join('+');
  const body = `${seedFormatVersion}.${header.scenario}.${bugs}.${header.seed}.${header.path ?? 'r'}`;
  return `${body}.${contentHash(`${body}|${canonicalSpec(spec)}`)}`;
}

/** Parse the header; the checksum is verified by verifySeedString once the plan is regenerated. */
export function decodeSeedString(text: string): SeedHeader & { check: string; body: string } {
  const token = text.trim();
  if (token.length === 0) throw new SeedStringError('empty seed string');
  if (/\s/.test(token)) throw new SeedStringError('a seed string is one token without spaces');
  const parts = token.split('.');
  const version = parts[0] ?? '';
  if (version !== seedFormatVersion) {
    if (/^gs\d+$/.test(version)) throw new SeedStringError(`seed string is format ${version}; this build reads ${seedFormatVersion} only`);
    throw new SeedStringError(`malformed seed string: it must start with "${seedFormatVersion}."`);
  }
  if (parts.length !== 6) throw new SeedStringError(`malformed seed string: expected ${seedFormatVersion}.<scenario>.<bugs>.<seed>.<path>.<check>, got ${parts.length} fields (truncated?)`);
  const [, scenario = '', bugText = '', seedText = '', pathText = '', check = ''] = parts;
  if (findScenario(scenario) === undefined) throw new SeedStringError(`unknown scenario "${scenario}" (known: ${scenarioNames.join(', ')})`);
  let bugs: BugId[];
  try {
    bugs = bugText === 'none' ? [] : parseBugList(bugText.replace(/\+/g, ','));
  } catch (error) {
    if (error instanceof UnknownBugError) throw new SeedStringError(error.message);
    throw error;
  }
  if (bugText !== 'none' && bugs.join('+') !== bugText) throw new SeedStringError(`malformed bug list "${bugText}" (known: ${bugIds.join(', ')})`);
  const seed = parseSeedNumber(seedText);
  if (pathText !== 'r' && !/^\d+(:\d+)*$/.test(pathText)) throw new SeedStringError(`malformed shrink path "${pathText}"`);
  if (!/^[0-9a-f]{8}$/.test(check)) throw new SeedStringError('malformed seed string: the check must be 8 hex digits (truncated?)');
  const body = parts.slice(0, 5).join('.');
  return { scenario, bugs, seed, path: pathText === 'r' ? undefined : pathText, check, body };
}

export function verifySeedString(decoded: { check: string; body: string }, spec: RunSpec): void {
  if (contentHash(`${decoded.body}|${canonicalSpec(spec)}`) !== decoded.check) {
    throw new SeedStringError('seed string check failed: it was edited or truncated, or made by a build whose scenarios differ');
  }
}

export function parseSeedNumber(text: string): number {
  if (!/^\d{1,10}$/.test(text) || Number(text) > seedMax) throw new SeedStringError(`seed must be an integer from 0 to ${seedMax}, got "${text}"`);
  return Number(text);
}
