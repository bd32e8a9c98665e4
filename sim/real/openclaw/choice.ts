// Which real OpenClaw parts a run puts in place of the model's (`--openclaw <release>[:<part>,...]`), and how a seed
// string records the choice: `@oc-<release>~<codes>`, the release with its dots written `_` and the parts by short
// codes joined by `+` (`@oc-2026_4_24~se+hw+ne`), always listed, so a string keeps its meaning when later builds run
// more of a release's parts by default.
//
// Node-event ingestion (`node-events`, the release's handleNodeEvent) enqueues into the release's own system-event
// queue and requests the release's own heartbeat wake (same module instance), so it runs only with both. 2026.7.1's
// handleNodeEvent first authorizes each exec event against the gateway's NodeRegistry, which holds a `system.run`
// invoke the gateway sent the node over its current connection: with that part the gateway issues the invokes
// (through the release's own NodeRegistry) and the node's deliveries name their connection (node-events.ts).
//
// The session write lock (`session-write-lock`, `wl`) is taken by two processes, the runner (each run attempt) and the
// gateway (the delivery mirror): each incarnation of each runs the release's acquireSessionWriteLock in an instance of
// its own (write-lock.ts).
//
// The session-file repair (`session-file-repair`, `fr`) runs in the runner (each run attempt's repair at open), in an
// instance of its own per runner incarnation (session-file-repair.ts); a command line asking for it re-runs itself under
// a Node the release supports (node-version.ts).
//
// The mirror append (`mirror-append`, `ma`) runs in the gateway (each delivery mirror's append), in the instance of the
// gateway's incarnation (mirror-append.ts). 2026.7.1's append takes the release's own session write lock, whose lock
// files the model's lock does not read as the release does (the model's payload names an incarnation id, not a pid):
// with 2026.7.1 it runs with `session-write-lock`, so that the runner takes the same lock.
//
// Around the parts (issue 43 item 5, surroundings.ts): the rest of the run follows the release where docs/MODEL.md
// knows how it behaves (2026.4.24's mirror takes no write lock, say), not the fixed model's defences. A choice whose
// release's table sets something records the table's revision in its tag, `~r<n>` after the codes
// (`@oc-2026_4_24~se+hw+ne~r1`); a tag without it, for such a release, was made before the table and means the fixed
// model around the parts (`around: 'model'`), so it replays as it ran then. A tag naming another revision is refused.
//
// The SQLite-era releases (2026.8.1, 2026.9.6) run the system-event queue, the wakes (2026.9.6's session-event wake),
// the node-event ingestion (its session entry read from the release's agent DB on the simulated node:sqlite, issue 45),
// the orphan merge and the mirror append (into the agent DB, mirror-append-sqlite.ts); each part they lack is listed
// with why (`missingPart`): gone or a no-op. A bare `--openclaw 2026.9.6` runs the parts it has (`~se+hw+ne+om+ma`;
// a string made before, `~se+hw+ne+om`, keeps its parts); naming one it lacks is refused with the reason (exit 2).
import { appendLocksItself } from './mirror-append.ts';
import { isOpenclawRelease, openclawPinnedReleases, type OpenclawRelease } from './releases.ts';
import { openclawSettingsFor, openclawSurroundingsRevision } from './surroundings.ts';

/** The gateway parts a run can take from a release (the rest of the gateway stays the model's). */
export const openclawGatewayParts = ['system-events', 'heartbeat-wake', 'node-events', 'orphan-merge', 'session-file-repair', 'session-write-lock', 'mirror-append'] as const;
export type OpenclawGatewayPart = (typeof openclawGatewayParts)[number];

/** Each part's short code, as seed-string tags write it; `--openclaw` takes it wherever it takes the part's name. */
export const openclawPartCodes: Readonly<Record<OpenclawGatewayPart, string>> = { 'system-events': 'se', 'heartbeat-wake': 'hw', 'node-events': 'ne', 'orphan-merge': 'om', 'session-file-repair': 'fr', 'session-write-lock': 'wl', 'mirror-append': 'ma' };
const codes = openclawPartCodes;

/** The part a name or a short code means (undefined when it is neither). */
function partNamed(text: string): OpenclawGatewayPart | undefined {
  return openclawGatewayParts.find((part) => part === text || codes[part] === text);
}

/** The parts as an error lists them: `system-events (se), heartbeat-wake (hw), ...`. */
const partsWithCodes = openclawGatewayParts.map((part) => `${part} (${codes[part]})`).join(', ');

/**
 * The parts of a SQLite-era release (header): node-events reads its session entry from the simulated agent DB, the
 * mirror append writes the delivered reply into it (issue 45).
 */
const sqliteEraParts: readonly OpenclawGatewayPart[] = ['system-events', 'heartbeat-wake', 'node-events', 'orphan-merge', 'mirror-append'];

/** The parts each release can run in place of the model's. */
const partsOfRelease: Readonly<Record<OpenclawRelease, readonly OpenclawGatewayPart[]>> = {
  '2026.4.24': openclawGatewayParts,
  '2026.7.1': openclawGatewayParts,
  '2026.7.35': openclawGatewayParts,
  '2026.8.1': sqliteEraParts,
  '2026.9.6': sqliteEraParts,
};

/**
 * Parts a release can run that a bare `--openclaw <release>` leaves out, with why: they run only when named. None now.
 * (2026.7.1's mirror append was one until its chaos campaign's stalled run was explained: the release's
 * AsyncLocalStorages, one set per instance, slowed every promise of the campaign's process, fixed in the hooks;
 * docs/MODEL.md "The mirror append, real".)
 */
const optInParts: Readonly<Partial<Record<OpenclawRelease, readonly OpenclawGatewayPart[]>>> = {};

/** The parts a bare `--openclaw <release>` runs: every part it can run but its opt-in ones. */
export function openclawBarePartsOf(release: OpenclawRelease): readonly OpenclawGatewayPart[] {
  const optIn = optInParts[release] ?? [];
  return partsOfRelease[release].filter((part) => !optIn.includes(part));
}

/** Why a release lacks a part: it is gone from the release, a no-op there, or needs what gatesim does not simulate. */
export type MissingPartKind = 'gone' | 'no-op' | 'needs-sqlite';

export interface MissingPart {
  part: OpenclawGatewayPart;
  kind: MissingPartKind;
  /** One clause, for the error a request of the part gets and for `list`. */
  why: string;
}

/** What the SQLite-era releases lack, each read in their chunks (docs/MODEL.md, "The SQLite-era releases"). */
function sqliteEraMissing(): Partial<Record<OpenclawGatewayPart, Omit<MissingPart, 'part'>>> {
  return {
    'session-file-repair': { kind: 'gone', why: 'gone since 2026.8.1 moved transcripts into the SQLite agent DB (no src/agents/session-file-repair.ts in its chunks)' },
    // "Session write leases were removed" for the session lane's writer claim; the stub is due to go in 2026.10.
    'session-write-lock': { kind: 'no-op', why: 'a no-op (its acquireSessionWriteLock is a deprecated stub that takes no lock: src/plugin-sdk/session-write-lock-runtime.ts)' },
  };
}

/** Why a release cannot run a part, for the error a request of it gets. */
const missingPart: Readonly<Partial<Record<OpenclawRelease, Partial<Record<OpenclawGatewayPart, Omit<MissingPart, 'part'>>>>>> = {
  '2026.8.1': sqliteEraMissing(),
  '2026.9.6': sqliteEraMissing(),
};

/** The parts a release lacks, each with why, in the order of openclawGatewayParts (`list` shows them). */
export function openclawMissingPartsOf(release: OpenclawRelease): MissingPart[] {
  return openclawGatewayParts.flatMap((part) => {
    const missing = missingPart[release]?.[part];
    return missing === undefined ? [] : [{ part, ...missing }];
  });
}

/** The parts a release can run (`list` shows them). */
export function openclawPartsOf(release: OpenclawRelease): readonly OpenclawGatewayPart[] {
  return partsOfRelease[release];
}

/** Which release, and which of its parts, a run puts in place of the model's. */
export interface OpenclawChoice {
  release: OpenclawRelease;
  parts: readonly OpenclawGatewayPart[];
  /**
   * What runs around the parts. Absent: the release's behaviour where docs/MODEL.md knows it (surroundings.ts);
   * `model`: the fixed model's defences, as every run had before that table (what a seed string made then names).
   */
  around?: 'model';
}

/** A bad `--openclaw` value or seed-string tag: the message says what is accepted. */
export class OpenclawChoiceError extends Error {
  override name = 'OpenclawChoiceError';
}

/** Why a set of parts cannot run together (undefined when it can). */
function partsProblem(release: OpenclawRelease, parts: readonly OpenclawGatewayPart[]): string | undefined {
  for (const part of parts) {
    const missing = missingPart[release]?.[part];
    if (missing !== undefined || !partsOfRelease[release].includes(part)) return `openclaw ${release} cannot run ${part}: ${missing?.why ?? 'not one of its parts'}`;
  }
  if (parts.includes('node-events') && !(parts.includes('system-events') && parts.includes('heartbeat-wake'))) {
    return "node-events runs with system-events and heartbeat-wake (the release's handleNodeEvent enqueues into its own queue and requests its own wake)";
  }
  if (parts.includes('mirror-append') && appendLocksItself(release) && !parts.includes('session-write-lock')) {
    return `mirror-append of openclaw ${release} runs with session-write-lock (the release's append takes the release's own lock, which the runner must take too)`;
  }
  return undefined;
}

/**
 * Parse `<release>` (every part it can run) or `<release>:<part>,<part>` as the command line takes it; a part is named
 * by its name or its short code (`2026.4.24:se,hw` is `2026.4.24:system-events,heartbeat-wake`).
 */
export function parseOpenclawChoice(text: string): OpenclawChoice {
  const [release = '', partsText, ...extra] = text.trim().split(':');
  if (!isOpenclawRelease(release) || extra.length > 0) throw new OpenclawChoiceError(`--openclaw takes a pinned release (${openclawPinnedReleases.join(', ')}), optionally followed by :<part>,<part> by name or code (${partsWithCodes}); got "${text.slice(0, 60)}"`);
  if (partsText === undefined) return { release, parts: [...openclawBarePartsOf(release)] };
  const named = partsText.split(',').map((part) => part.trim());
  const unknown = named.find((part) => partNamed(part) === undefined);
  if (unknown !== undefined || named.length === 0) throw new OpenclawChoiceError(`unknown OpenClaw part "${(unknown ?? '').slice(0, 40)}" (parts, by name or code: ${partsWithCodes})`);
  const wanted = named.map(partNamed);
  const parts = openclawGatewayParts.filter((part) => wanted.includes(part));
  const problem = partsProblem(release, parts);
  if (problem !== undefined) throw new OpenclawChoiceError(problem);
  return { release, parts };
}

/**
 * Whether a choice's tag names the table of the parts around (surroundings.ts): when it runs the release's settings
 * and the release has any for these parts. Otherwise the run around the parts is the fixed model's either way.
 */
function namesSurroundings(choice: OpenclawChoice): boolean {
  return choice.around !== 'model' && openclawSettingsFor(choice.release, choice.parts).length > 0;
}

/** The seed-string tag of a choice (without the `@`): `oc-<release>~<codes>`, then `~r<n>` for the table it ran with. */
export function openclawTag(choice: OpenclawChoice): string {
  const revision = namesSurroundings(choice) ? `~r${openclawSurroundingsRevision}` : '';
  return `oc-${choice.release.replace(/\./g, '_')}~${openclawGatewayParts.filter((part) => choice.parts.includes(part)).map((part) => codes[part]).join('+')}${revision}`;
}

/**
 * The choice a seed-string tag names, or undefined when the tag is not a well-formed OpenClaw tag or names a revision
 * of the table around the parts this build does not have. A tag without a revision whose release's table sets
 * something for its parts was made before the table: the fixed model around the parts (`around: 'model'`).
 */
export function openclawChoiceOfTag(tag: string): OpenclawChoice | undefined {
  const match = /^oc-([0-9_]+)~([a-z]{2}(?:\+[a-z]{2})*)(?:~r([1-9][0-9]{0,5}))?$/.exec(tag);
  const release = match?.[1]?.replace(/_/g, '.') ?? '';
  if (match === null || !isOpenclawRelease(release)) return undefined;
  const wanted = (match[2] ?? '').split('+');
  const parts = openclawGatewayParts.filter((part) => wanted.includes(codes[part]));
  if (parts.length !== wanted.length || partsProblem(release, parts) !== undefined) return undefined;
  if (match[3] !== undefined && Number(match[3]) !== openclawSurroundingsRevision) return undefined;
  const current: OpenclawChoice = { release, parts };
  const choice: OpenclawChoice = match[3] === undefined && namesSurroundings(current) ? { ...current, around: 'model' } : current;
  return openclawTag(choice) === tag ? choice : undefined;
}

/** How the choice reads in a report: `openclaw 2026.4.24 (system-events, heartbeat-wake, node-events)`. */
export function describeOpenclawChoice(choice: OpenclawChoice): string {
  return `openclaw ${choice.release} (${choice.parts.join(', ')})${choice.around === 'model' ? ", the fixed model's defences around them" : ''}`;
}
