// Whose code a report is about. A run may put real code in place of parts of gatesim's model (a pinned OpenClaw
// release's parts, the real pi SessionManager, a caller's own component) or load a user's module that registers
// scenarios and invariants; every report (text, JSON, trace.html) names it in words, so that a failure of OpenClaw's
// code never reads as a failure of gatesim's fixed model. A violation in a run with real code is matched against the
// findings docs/MODEL.md documents about that code (each entry names its section; a test checks the headings exist):
// a match says which one, and a violation that matches none is marked new, for a reader to study and record.
import type { Violation } from '../checkers/index.ts';
import type { TraceEvent } from '../kernel/trace.ts';
import type { RealCode } from '../run/harness.ts';
import { aroundTheParts } from '../real/openclaw/surroundings.ts';

/** What a report says of a run's code: the real code that ran, and what stayed gatesim's. */
export interface CodeUnderTest {
  /** OpenClaw's release and the parts that ran from it, or null. */
  openclaw: { release: string; parts: string[] } | null;
  /**
   * Around the OpenClaw parts (sim/real/openclaw/surroundings.ts), or null without them: the table's revision (null:
   * the fixed model around the parts, a seed string made before the table), the release's settings this run applied,
   * and the fixed model's defences that stayed in force.
   */
  openclawAround: { revision: number | null; applied: { id: string; name: string; variant: string }[]; defences: { id: string; name: string; why: string }[] } | null;
  /** The runner's SessionManager: gatesim's model or the real pi one. */
  sessionManager: 'model' | 'pi';
  /** Processes that ran a component of the caller's own. */
  customComponents: string[];
  /** Modules the command line loaded first (--load), as the seed string names them. */
  loadedModules: string[];
  /** The same, in one sentence. */
  text: string;
}

/** The modules this process loaded with --load (the command line notes them; a worker loads the same). */
let processLoads: readonly string[] = [];

export function noteLoadedModules(modules: readonly string[]): void {
  processLoads = [...modules];
}

export function codeUnderTest(realCode: RealCode, loadedModules: readonly string[] = processLoads): CodeUnderTest {
  const openclaw = realCode.openclaw === undefined ? null : { release: realCode.openclaw.release, parts: [...realCode.openclaw.parts] };
  // A run records what it applied; a RealCode made by hand has the choice's defences (no setting known to apply).
  const around = realCode.openclaw === undefined ? undefined : (realCode.openclawAround ?? aroundTheParts(realCode.openclaw, { bugs: [], knobs: {} }));
  const openclawAround =
    around === undefined
      ? null
      : {
          revision: around.revision,
          applied: around.applied.map((setting) => ({ id: setting.id, name: setting.name, variant: setting.variant })),
          defences: around.defences.map((defence) => ({ id: defence.id, name: defence.name, why: defence.why })),
        };
  const pieces = [
    ...(openclaw === null ? [] : [`OpenClaw ${openclaw.release}'s ${openclaw.parts.join(', ')}`]),
    ...(realCode.sessionManager === 'pi' ? ["pi's SessionManager (@mariozechner/pi-coding-agent)"] : []),
    ...(realCode.custom.length === 0 ? [] : [`your own component for the ${realCode.custom.join(', ')}`]),
  ];
  const real = pieces.length === 0 ? "gatesim's model only, no real code" : `real code: ${pieces.join('; ')}, in place of gatesim's model; the rest is gatesim's model`;
  const loads = loadedModules.length === 0 ? '' : `; loaded modules: ${loadedModules.join(', ')}`;
  return { openclaw, openclawAround, sessionManager: realCode.sessionManager, customComponents: [...realCode.custom], loadedModules: [...loadedModules], text: `${real}${aroundText(openclawAround)}${loads}` };
}

/** Around the OpenClaw parts, in words: what of the release ran around them, and the model defences still in force. */
function aroundText(around: CodeUnderTest['openclawAround']): string {
  if (around === null) return '';
  const ran =
    around.revision === null
      ? "; around them the fixed model's defences (a seed string made before the table of the parts around)"
      : around.applied.length === 0
        ? ''
        : `; around them as the release: ${around.applied.map((setting) => setting.name).join(', ')}`;
  const defences = around.defences.length === 0 ? '' : `; model defences in force: ${around.defences.map((defence) => defence.name).join(', ')}`;
  return `${ran}${defences}`;
}

/** Whether anything but gatesim's own model ran (then each violation is matched against the documented findings). */
export function ranRealCode(code: CodeUnderTest): boolean {
  return code.openclaw !== null || code.sessionManager === 'pi' || code.customComponents.length > 0;
}

/** A finding about real code that docs/MODEL.md documents, with the section that states it. */
export interface DocumentedFinding {
  /** The heading of its section in docs/MODEL.md, as written there (without the #s). */
  section: string;
  /** The finding in a few words. */
  summary: string;
  /**
   * Whose code it is about: an OpenClaw part in any of these releases, a setting of a release's behaviour around its
   * parts that the run applied (sim/real/openclaw/surroundings.ts, by its id), or the pi SessionManager.
   */
  code: { openclawPart: string; releases: readonly string[] } | { openclawSetting: string; releases: readonly string[] } | { sessionManager: 'pi' };
  invariants: readonly string[];
  /**
   * What else the violation or the run must show for the finding to be this one: its message, a fault of the run, a
   * process the run restarted, or that the message it names (`[m<n>]`) is one a no-double-ingestion violation of the
   * same run names, with text this pattern matches (the violation follows from that message taken twice).
   */
  shows?: { message?: RegExp; fault?: string; restarted?: string; messageIngestedTwice?: RegExp };
}

// The first finding that matches is the one named: the narrower ones come first.
export const documentedFindings: readonly DocumentedFinding[] = [
  {
    section: 'Node exec events, real',
    summary: "a command's event taken twice: a replayed exec.started after the drain (every release), or exec.finished resent after a gateway restart (2026.4.24)",
    // The SQLite era's handleNodeEvent authorizes as 2026.7.1 (a start is not terminal): docs/MODEL.md, "Node events in
    // the SQLite era, on the simulated agent DB".
    code: { openclawPart: 'node-events', releases: ['2026.4.24', '2026.7.1', '2026.7.35', '2026.8.1', '2026.9.6'] },
    invariants: ['no-double-ingestion'],
    shows: { message: /command run-/ },
  },
  {
    section: 'Around the real parts',
    summary: "2026.4.24's delivery mirror appends without the session write lock (#21813's race): a mirror entry appended while a run holds the file lands off the active branch",
    code: { openclawPart: 'mirror-append', releases: ['2026.4.24'] },
    invariants: ['transcript-consistent'],
    shows: { message: /entries are off the active branch/ },
  },
  {
    section: 'Around the real parts',
    summary: "chat.send's dedupe map is in the gateway's memory (2026.7.1, 2026.7.35): a WebChat message resent after a gateway restart, under the key of its first send, is taken again",
    code: { openclawSetting: 'chat-dedupe-in-memory', releases: ['2026.7.1', '2026.7.35'] },
    // The message in two user rows or entries; its answer, asked twice with the same prompt, stored and shown twice.
    invariants: ['no-double-ingestion', 'one-assistant-row-per-visible-reply', 'no-duplicate-visible-reply'],
    shows: { restarted: 'gateway', messageIngestedTwice: /\(delivery wc-/ },
  },
  {
    section: 'The session-file repair, real',
    summary: "a power loss just after the release's repair empties the transcript (its writes are never synced)",
    code: { openclawPart: 'session-file-repair', releases: ['2026.4.24', '2026.7.1', '2026.7.35'] },
    invariants: ['transcript-consistent', 'one-assistant-row-per-visible-reply', 'no-lost-user-message'],
    shows: { fault: 'power-loss' },
  },
  {
    section: "The model's SessionManager and the real one",
    summary: 'pi never fsyncs its transcript, so a power loss drops entries of a reply the user saw',
    code: { sessionManager: 'pi' },
    invariants: ['one-assistant-row-per-visible-reply', 'no-lost-user-message', 'transcript-consistent'],
    shows: { fault: 'power-loss' },
  },
];

/** How a violation of a run with real code stands against docs/MODEL.md: a documented finding, or new. */
export type FindingMatch = { status: 'documented'; section: string; summary: string } | { status: 'new' };

/**
 * Match one violation of a run against the documented findings; `violations` are all of the run's (a finding may
 * follow from another violation of the same run: shows.messageIngestedTwice).
 */
export function matchFinding(violation: Violation, code: CodeUnderTest, events: readonly TraceEvent[], violations: readonly Violation[] = [violation]): FindingMatch {
  const faults = new Set(events.filter((event) => event.kind === 'fault').map((event) => String(event.fields.kind)));
  const restarted = new Set(events.filter((event) => event.kind === 'proc.restart').map((event) => String(event.fields.name)));
  const ran = (finding: DocumentedFinding): boolean => {
    if ('sessionManager' in finding.code) return code.sessionManager === 'pi';
    if (code.openclaw === null || !finding.code.releases.includes(code.openclaw.release)) return false;
    if ('openclawPart' in finding.code) return code.openclaw.parts.includes(finding.code.openclawPart);
    const setting = finding.code.openclawSetting;
    return code.openclawAround?.applied.some((applied) => applied.id === setting) ?? false;
  };
  // The message a violation names, and whether a no-double-ingestion violation of the run names it, matching `pattern`.
  const ingestedTwice = (pattern: RegExp): boolean => {
    const named = /\[m\d+\]/.exec(violation.message)?.[0];
    return named !== undefined && violations.some((other) => other.invariant === 'no-double-ingestion' && other.message.includes(named) && pattern.test(other.message));
  };
  const found = documentedFindings.find((finding) => {
    if (!finding.invariants.includes(violation.invariant) || !ran(finding)) return false;
    const shows = finding.shows ?? {};
    if (shows.message !== undefined && !shows.message.test(violation.message)) return false;
    if (shows.restarted !== undefined && !restarted.has(shows.restarted)) return false;
    if (shows.messageIngestedTwice !== undefined && !ingestedTwice(shows.messageIngestedTwice)) return false;
    return shows.fault === undefined || faults.has(shows.fault);
  });
  return found === undefined ? { status: 'new' } : { status: 'documented', section: found.section, summary: found.summary };
}

/** A match in words, for the text report and trace.html. */
export function findingText(match: FindingMatch): string {
  return match.status === 'documented' ? `documented finding about the real code: docs/MODEL.md "${match.section}" (${match.summary})` : 'new: matches no finding docs/MODEL.md documents about the real code that ran';
}
