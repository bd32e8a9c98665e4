// Seed strings: one copyable token that reproduces a run exactly, in a fresh process or on another machine.
//
//   gs2.<scenario>[@pi][@oc-<release>~<parts>][@custom-<process>...][@file-<module>|@pkg-<module>...].<bugs>.<seed>.<path>.<build>.<check>
//
// Tags after the scenario name what else changed the run: `@pi`, the runner used the real pi SessionManager
// (--session-manager pi); `@oc-2026_4_24~se+hw`, parts of a pinned OpenClaw release ran in place of the model's
// (--openclaw; sim/real/openclaw/choice.ts); `@custom-<process>`, a component of the caller's own ran in place of that process (a
// function, which no token can carry: a replay must be handed it again); `@file-<module>` and `@pkg-<module>`, the
// command line loaded that module first (--load), so a replay without it is refused, naming it. A file is named by
// its path from its project root (load.ts, loadName), so the name holds in every folder of the project, written with
// `/` as `~` and `.` as `_` (any other character but letters, digits and `-` as `+` and two hex digits of each UTF-8
// byte): `./test/gatesim.setup.ts` is `@file-test~gatesim_setup_ts`, `../x.ts` `@file-__~x_ts`; a package
// specifier likewise, `@my/setup` is `@pkg-+40my~setup`. Strings made before issue 42 have `@load-<module>`, the
// base64url of the module as given on the command line: still read.
// `gs2` is the format version; <bugs> is `none` or bug ids joined by `+`; <seed> is the fast-check seed the plan
// was generated from; <path> is where shrinking went: `r` for the first plan of the seed, else fast-check's
// counterexample path (steps 0:24:1:1:...) in a compact form, one character a step: 0-9 then a-z for 0 to 35,
// `_<decimal>_` for a larger step, and an upper-case letter after a step for how many times in all it occurs in a
// row, C (3) to Z (26); so `0:24:1:1:1:1:4:...:4` (ten 4s) is `0o1D4J`. A path whose compact form would be all
// digits, which the form before issue 42 reads differently (`12` was the one step 12), is written in that form, the
// steps joined by `-` (`0-1-2`), which stays valid. <build> names the build that made it: the package version (dots written as `_`) and a short hash of
// the definition of the scenario it names (the plans that scenario generates for fixed seeds), e.g. `0_1_0-3fa2c1`, so
// changing or registering another scenario leaves its strings valid; <check> is 8 hex digits
// of a hash over the header and the plan it regenerates to, so a truncated, edited or foreign string is refused
// instead of silently running something else.
import packageJson from '../../package.json' with { type: 'json' };
import { type BugId, bugIds, parseBugList, UnknownBugError } from '../../src/index.ts';
import { contentHash } from '../../src/index.ts';
import { replaceableProcesses, type ReplaceableProcess } from '../../src/index.ts';
import { builtinScenarioCount, findScenario, type Scenario, scenarioNames, scenarios } from '../../scenarios/index.ts';
import { generateSpec } from '../run/generate.ts';
import { type OpenclawChoice, openclawChoiceOfTag, openclawTag } from '../real/openclaw/choice.ts';
import type { RunSpec } from '../run/plan.ts';
import { loadArgument, loadName } from './load.ts';

export const seedFormatVersion = 'gs2';
export const seedStringLengthMax = 4_096;
const seedMax = 2 ** 31 - 1;
const fingerprintSeeds = [1, 2, 3] as const;

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
  /** Which SessionManager the runner used: the model's own unless 'pi' (the real module, sim/real). */
  sessionManager?: 'model' | 'pi';
  /** Gateway parts that ran as a pinned OpenClaw release's (--openclaw). */
  openclaw?: OpenclawChoice;
  /** Processes that ran a component of the caller's own (a function: a replay must be given it again). */
  custom?: readonly ReplaceableProcess[];
  /**
   * Modules the command line loaded first (--load), by their names (load.ts, loadName): a file by its path from its
   * project root, `./test/setup.ts`, a package by its specifier. Given an absolute path or a file: URL, tagsOf and
   * encodeSeedString name it so.
   */
  loads?: readonly string[];
  bugs: BugId[];
  seed: number;
  path: string | undefined;
}

/** What a run needs besides its plan and bugs, as a seed string's scenario tags record it. */
export type RunTags = Pick<SeedHeader, 'sessionManager' | 'openclaw' | 'custom' | 'loads'>;

/** The run options the tags of a seed string ask for: the real pi SessionManager, a real OpenClaw release's parts. */
export function runOptionsOf(tags: RunTags): { sessionManager?: 'pi'; openclaw?: OpenclawChoice } {
  return { ...(tags.sessionManager === 'pi' ? { sessionManager: 'pi' as const } : {}), ...(tags.openclaw === undefined ? {} : { openclaw: tags.openclaw }) };
}

/**
 * The tags of a header, without undefined or empty entries (so equal runs give equal objects); the loaded modules by
 * their names (a file given twice, by two spellings, named once).
 */
export function tagsOf(header: RunTags): RunTags {
  return {
    ...(header.sessionManager === 'pi' ? { sessionManager: 'pi' as const } : {}),
    ...(header.openclaw === undefined ? {} : { openclaw: { release: header.openclaw.release, parts: [...header.openclaw.parts], ...(header.openclaw.around === undefined ? {} : { around: header.openclaw.around }) } }),
    ...(header.custom !== undefined && header.custom.length > 0 ? { custom: [...header.custom].sort() } : {}),
    ...(header.loads !== undefined && header.loads.length > 0 ? { loads: [...new Set(header.loads.map((module) => loadName(module, process.cwd())))] } : {}),
  };
}

export interface Build {
  version: string;
  /**
   * 6 hex digits over the plans scenarios generate for a few fixed seeds: in a seed string, those of the scenario it
   * names; in `thisBuild()`, those of every built-in scenario.
   */
  scenarios: string;
}

let currentBuild: Build | undefined;
const scenarioFingerprints = new Map<Scenario, string>();

function plansOf(scenario: Scenario): string {
  return fingerprintSeeds.map((seed) => canonicalSpec(generateSpec(scenario, [], seed, undefined))).join('|');
}

/** This build as `--version` names it: the package version and the fingerprint of the built-in scenarios (computed once). */
export function thisBuild(): Build {
  if (currentBuild === undefined) {
    const plans = scenarios.slice(0, builtinScenarioCount).map(plansOf);
    currentBuild = { version: packageJson.version, scenarios: contentHash(plans.join('\n')).slice(0, 6) };
  }
  return currentBuild;
}

/** The build a seed string of this scenario names: the package version and the fingerprint of that scenario alone. */
export function buildFor(scenarioName: string): Build {
  const scenario = findScenario(scenarioName);
  if (scenario === undefined) throw new SeedStringError(`unknown scenario "${clip(scenarioName)}" (known: ${scenarioNames.join(', ')})`);
  let fingerprint = scenarioFingerprints.get(scenario);
  if (fingerprint === undefined) {
    fingerprint = contentHash(plansOf(scenario)).slice(0, 6);
    scenarioFingerprints.set(scenario, fingerprint);
  }
  return { version: packageJson.version, scenarios: fingerprint };
}

export function buildToken(build: Build): string {
  return `${build.version.replace(/\./g, '_')}-${build.scenarios}`;
}

export function describeBuild(build: Build, scenario?: string): string {
  return scenario === undefined ? `gatesim ${build.version} (scenarios ${build.scenarios})` : `gatesim ${build.version} (scenario ${scenario} ${build.scenarios})`;
}

function parseBuildToken(token: string): Build | undefined {
  const match = /^([0-9A-Za-z_-]{1,40})-([0-9a-f]{6})$/.exec(token);
  if (match === null) return undefined;
  return { version: (match[1] ?? '').replace(/_/g, '.'), scenarios: match[2] ?? '' };
}

export function canonicalSpec(spec: RunSpec): string {
  return JSON.stringify({ scenario: spec.scenario, bugs: spec.bugs, seed: spec.seed, plan: spec.plan });
}

/** The seed string of a run: the header plus a check over the plan it regenerates to. */
export function encodeSeedString(header: SeedHeader, spec: RunSpec): string {
  const bugs = header.bugs.length === 0 ? 'none' : header.bugs.join('+');
  const scenarioField = [header.scenario, ...scenarioTags(header)].join('@');
  const body = `${seedFormatVersion}.${scenarioField}.${bugs}.${header.seed}.${pathField(header.path)}.${buildToken(buildFor(header.scenario))}`;
  return `${body}.${contentHash(`${body}|${canonicalSpec(spec)}`)}`;
}

/** Parse the header; the checksum is verified by verifySeedString once the plan is regenerated. */
export function decodeSeedString(text: string): SeedHeader & { check: string; body: string } {
  const token = text.trim();
  if (token.length === 0) throw new SeedStringError('empty seed string');
  if (token.length > seedStringLengthMax) throw new SeedStringError(`seed string is too long (${token.length} characters; at most ${seedStringLengthMax})`);
  if (/\s/.test(token)) throw new SeedStringError('a seed string is one token without spaces');
  const parts = token.split('.');
  checkVersion(parts[0] ?? '');
  if (parts.length !== 7) throw new SeedStringError(`malformed seed string: expected ${seedFormatVersion}.<scenario>.<bugs>.<seed>.<path>.<build>.<check>, got ${parts.length} fields (truncated?)`);
  const [, scenarioField = '', bugText = '', seedText = '', pathText = '', buildText = '', check = ''] = parts;
  const [scenario = '', ...tagTexts] = scenarioField.split('@');
  const tags = parseTags(tagTexts, scenarioField);
  if (findScenario(scenario) === undefined) throw new SeedStringError(unknownScenarioMessage(scenario, tags.loads));
  checkBuild(buildText, scenario);
  const bugs = decodeBugs(bugText);
  const seed = parseSeedNumber(seedText);
  const path = decodePath(pathText);
  if (!/^[0-9a-f]{8}$/.test(check)) throw new SeedStringError('malformed seed string: the check must be 8 hex digits (truncated?)');
  const body = parts.slice(0, 6).join('.');
  return { scenario, ...tags, bugs, seed, path, check, body };
}

const stepDigits = '0123456789abcdefghijklmnopqrstuvwxyz';
/** The most steps a path may have (a compact path could otherwise ask for millions). */
const pathStepsMax = seedStringLengthMax;

/** The <path> field of a fast-check counterexample path (steps joined by `:`), or `r` for none. */
function pathField(path: string | undefined): string {
  if (path === undefined) return 'r';
  const steps = path.split(':').map(Number);
  // Not a path of fast-check's (never made): written as it is, as before.
  if (!steps.every((step) => Number.isSafeInteger(step) && step >= 0)) return path.replace(/:/g, '-');
  const compact = compactPath(steps);
  // `r` alone (the one step 27) would read as no path.
  return /^\d+$/.test(compact) || compact === 'r' ? steps.join('-') : compact;
}

/** Steps as the compact form writes them: a character a step, and a run of one step as the step and its count. */
function compactPath(steps: readonly number[]): string {
  let text = '';
  for (let at = 0; at < steps.length; ) {
    const step = steps[at] as number;
    let end = at;
    while (end < steps.length && steps[end] === step) end++;
    const one = step < stepDigits.length ? (stepDigits[step] as string) : `_${step}_`;
    for (let left = end - at; left > 0; ) {
      const run = Math.min(left, 26);
      text += run >= 3 ? `${one}${String.fromCharCode(64 + run)}` : one.repeat(run);
      left -= run;
    }
    at = end;
  }
  return text;
}

/** The fast-check path of a <path> field (steps joined by `:`), undefined for `r`; either form, compact only as written by compactPath. */
function decodePath(text: string): string | undefined {
  if (text === 'r') return undefined;
  if (text.length === 0) throw new SeedStringError('malformed seed string: the shrink path is empty (truncated?)');
  if (/^\d+(-\d+)*$/.test(text)) return text.replace(/-/g, ':');
  const malformed = (): SeedStringError => new SeedStringError(`malformed shrink path "${clip(text)}"`);
  const steps: number[] = [];
  for (let at = 0; at < text.length; ) {
    const char = text[at] as string;
    const bigStep = /^_(\d{1,9})_/.exec(text.slice(at, at + 12));
    if (stepDigits.includes(char)) steps.push(stepDigits.indexOf(char));
    else if (bigStep !== null) {
      steps.push(Number(bigStep[1]));
      at += bigStep[0].length;
      continue;
    } else if (/^[C-Z]$/.test(char) && steps.length > 0) steps.push(...Array<number>(char.charCodeAt(0) - 65).fill(steps.at(-1) as number));
    else throw malformed();
    if (steps.length > pathStepsMax) throw new SeedStringError(`malformed shrink path "${clip(text)}": more than ${pathStepsMax} steps`);
    at++;
  }
  // One spelling a path: another (a run split differently, a step written long) is an edited string.
  if (compactPath(steps) !== text) throw malformed();
  return steps.join(':');
}

function scenarioTags(header: RunTags): string[] {
  const tags = tagsOf(header);
  return [
    ...(tags.sessionManager === 'pi' ? ['pi'] : []),
    ...(tags.openclaw === undefined ? [] : [openclawTag(tags.openclaw)]),
    ...(tags.custom ?? []).map((process) => `custom-${process}`),
    ...(tags.loads ?? []).map(loadTag),
  ];
}

/** The tag of a loaded module's name: `file-<path from the project root>` or `pkg-<specifier>`, written file-name safe. */
function loadTag(name: string): string {
  return name.startsWith('./') ? `file-${tagText(name.slice(2))}` : name.startsWith('../') ? `file-${tagText(name)}` : `pkg-${tagText(name)}`;
}

/** The module name of a `file-` or `pkg-` tag's text, or undefined when the text is not one loadTag writes. */
function nameOfLoadTag(kind: 'file' | 'pkg', text: string): string | undefined {
  const decoded = untagText(text);
  if (decoded === undefined || decoded.length === 0) return undefined;
  const name = kind === 'pkg' ? decoded : decoded.startsWith('../') ? decoded : `./${decoded}`;
  if (kind === 'pkg' && (name.startsWith('.') || name.startsWith('/'))) return undefined;
  return loadTag(loadName(name, process.cwd())) === `${kind}-${text}` ? name : undefined;
}

/** Text in a tag: `/` as `~`, `.` as `_`, letters, digits and `-` as they are, any other byte as `+` and two hex digits. */
function tagText(text: string): string {
  let out = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    const char = String.fromCharCode(byte);
    out += char === '/' ? '~' : char === '.' ? '_' : /[A-Za-z0-9-]/.test(char) ? char : `+${byte.toString(16).padStart(2, '0')}`;
  }
  return out;
}

function untagText(text: string): string | undefined {
  const bytes: number[] = [];
  for (let at = 0; at < text.length; at++) {
    const char = text[at] as string;
    if (char === '+') {
      const hex = text.slice(at + 1, at + 3);
      if (!/^[0-9a-f]{2}$/.test(hex)) return undefined;
      bytes.push(Number.parseInt(hex, 16));
      at += 2;
    } else if (char === '~' || char === '_' || /[A-Za-z0-9-]/.test(char)) bytes.push((char === '~' ? '/' : char === '_' ? '.' : char).charCodeAt(0));
    else return undefined;
  }
  const decoded = Buffer.from(bytes).toString('utf8');
  return Buffer.from(decoded, 'utf8').equals(Buffer.from(bytes)) ? decoded : undefined;
}

function parseTags(texts: readonly string[], field: string): RunTags {
  const custom: ReplaceableProcess[] = [];
  const loads: string[] = [];
  let sessionManager: 'pi' | undefined;
  let openclaw: OpenclawChoice | undefined;
  const malformed = (): SeedStringError =>
    new SeedStringError(`malformed scenario field "${clip(field)}" (a scenario, then optionally @pi, @oc-<release>~<parts>, @custom-<process> (${replaceableProcesses.join(', ')}) and @file-<module> or @pkg-<module>)`);
  for (const text of texts) {
    if (text === 'pi' && sessionManager === undefined && openclaw === undefined && custom.length === 0 && loads.length === 0) sessionManager = 'pi';
    else if (text.startsWith('oc-') && openclaw === undefined && custom.length === 0 && loads.length === 0) {
      openclaw = openclawChoiceOfTag(text);
      if (openclaw === undefined) throw malformed();
    }
    else if (text.startsWith('custom-') && loads.length === 0) {
      const process = text.slice('custom-'.length);
      if (!(replaceableProcesses as readonly string[]).includes(process) || custom.includes(process as ReplaceableProcess)) throw malformed();
      if (custom.length > 0 && (custom.at(-1) as string) > process) throw malformed();
      custom.push(process as ReplaceableProcess);
    } else if (/^load-[A-Za-z0-9_-]+$/.test(text)) {
      // Before issue 42: the module as given, in base64url.
      const module = Buffer.from(text.slice('load-'.length), 'base64url').toString('utf8');
      if (module.length === 0 || Buffer.from(module, 'utf8').toString('base64url') !== text.slice('load-'.length)) throw malformed();
      loads.push(module);
    } else if (text.startsWith('file-') || text.startsWith('pkg-')) {
      const kind = text.startsWith('file-') ? 'file' : 'pkg';
      const name = nameOfLoadTag(kind, text.slice(kind.length + 1));
      if (name === undefined) throw malformed();
      loads.push(name);
    } else throw malformed();
  }
  return tagsOf({ ...(sessionManager === undefined ? {} : { sessionManager }), ...(openclaw === undefined ? {} : { openclaw }), custom, loads });
}

function unknownScenarioMessage(scenario: string, loads: readonly string[] | undefined): string {
  if (loads !== undefined) {
    return `unknown scenario "${clip(scenario)}": the seed string was made with ${loadOptions(loads)}, which registers it; replay it with: ${cliInvocation()} ${loadOptions(loads)} repro <seed-string>`;
  }
  return `unknown scenario "${clip(scenario)}" (known: ${scenarioNames.join(', ')}): a scenario that is not built in must be registered before the replay (--load the module that registers it, or registerScenario in your code)`;
}

function checkVersion(version: string): void {
  if (version === seedFormatVersion) return;
  if (/^gs\d+$/.test(version)) {
    throw new SeedStringError(`seed string is format ${version}, made by another build of gatesim; this is ${describeBuild(thisBuild())}, which reads ${seedFormatVersion} only`);
  }
  throw new SeedStringError(`malformed seed string: it must start with "${seedFormatVersion}."`);
}

function checkBuild(text: string, scenario: string): void {
  const build = parseBuildToken(text);
  if (build === undefined) throw new SeedStringError(`malformed seed string: bad build field "${clip(text)}" (truncated?)`);
  const here = buildFor(scenario);
  if (build.version !== here.version || build.scenarios !== here.scenarios) {
    throw new SeedStringError(`seed string was made by ${describeBuild(build, scenario)}; this is ${describeBuild(here, scenario)}: replay it with the build that made it`);
  }
}

function decodeBugs(bugText: string): BugId[] {
  let bugs: BugId[];
  try {
    bugs = bugText === 'none' ? [] : parseBugList(bugText.replace(/\+/g, ','));
  } catch (error) {
    if (error instanceof UnknownBugError) throw new SeedStringError(clip(error.message, 200));
    throw error;
  }
  if (bugText !== 'none' && bugs.join('+') !== bugText) throw new SeedStringError(`malformed bug list "${clip(bugText)}" (known: ${bugIds.join(', ')})`);
  return bugs;
}

export function verifySeedString(decoded: { check: string; body: string }, spec: RunSpec): void {
  if (contentHash(`${decoded.body}|${canonicalSpec(spec)}`) !== decoded.check) {
    throw new SeedStringError('seed string check failed: it was edited or truncated');
  }
}

export function parseSeedNumber(text: string): number {
  if (!/^\d{1,10}$/.test(text) || Number(text) > seedMax) throw new SeedStringError(`seed must be an integer from 0 to ${seedMax}, got "${clip(text)}"`);
  return Number(text);
}

/**
 * How to replay a seed string, as one line: the command (with the --load modules it names) for this installation
 * (`npm run sim --` in gatesim's own repository, `npx gatesim` where gatesim is installed), or, for a run with a
 * component of one's own, the library call that must be handed it again.
 */
export function reproduceHint(seedString: string): string {
  const scenarioField = seedString.split('.')[1] ?? '';
  const tags = parseTags(scenarioField.split('@').slice(1), scenarioField);
  if (tags.custom !== undefined) {
    const given = tags.custom.map((process) => `'${process}': <your component>`).join(', ');
    return `reproduce('${seedString}', { components: { ${given} } }) from your code (a component of your own ran)`;
  }
  const loads = tags.loads === undefined ? '' : `${loadOptions(tags.loads)} `;
  return `${cliInvocation()} ${loads}repro ${seedString}`;
}

/**
 * The `--load` options that load these modules (by their names) from the current folder, e.g. `--load ../setup.ts`
 * in a subfolder of the project; an argument the shell would split or expand is quoted.
 */
export function loadOptions(names: readonly string[]): string {
  return names
    .map((name) => {
      const argument = clip(loadArgument(name, process.cwd()), 120);
      return `--load ${/^[\w./@-]+$/.test(argument) ? argument : JSON.stringify(argument)}`;
    })
    .join(' ');
}

/** How a user runs the command line here: `npm run sim --` in gatesim's own repository, `npx gatesim` where it is installed. */
export function cliInvocation(): string {
  return import.meta.url.endsWith('.ts') ? 'npm run sim --' : 'npx gatesim';
}

/** Cut user-supplied text quoted in an error line, so a huge input gives a short line. */
export function clip(text: string, lengthMax = 60): string {
  return text.length <= lengthMax ? text : `${text.slice(0, lengthMax)}... (${text.length} characters)`;
}
