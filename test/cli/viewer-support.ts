// Runs for the trace viewer tests: a failing send-mid-turn run with faults that land (SIGKILLs, lost writes, a
// dropped message), and a hand-made run whose user text is hostile HTML; and the browser they are opened in (Debian's
// Chromium through playwright-core), with the view of the failing run that the README's screenshot shows, which the
// browser test takes and bench/trace-viewer-screenshot.ts (`npm run screenshot`) saves as docs/trace-viewer.png.
import { existsSync } from 'node:fs';
import type { Page } from 'playwright-core';
import type { SqlJsStatic } from 'sql.js';
import { findScenario } from '../../scenarios/index.ts';
import { generateSpec } from '../../sim/run/generate.ts';
import { type RunResult, runSpec } from '../../sim/run/harness.ts';
import { noFaults, type Plan } from '../../sim/run/plan.ts';

/** send-mid-turn with send-flag, seed 19: fails no-lost-reply; its plan kills the runner and the tool server, and a message is dropped. */
export async function failingRunWithFaults(sql: SqlJsStatic): Promise<RunResult> {
  const scenario = findScenario('send-mid-turn');
  if (scenario === undefined) throw new Error('scenario send-mid-turn is gone');
  return runSpec(generateSpec(scenario, ['send-flag'], 19, undefined), { sql });
}

export const hostileText = '<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2">&amp;';

/** One user message whose text is hostile HTML, on the fixed model with no faults. */
export async function runWithHostileText(sql: SqlJsStatic): Promise<RunResult> {
  const plan: Plan = {
    sessions: 1,
    workload: [{ kind: 'user', atMs: 500, session: 0, text: hostileText }],
    faults: [],
    faultKnobs: noFaults,
    model: { toolCallPer1000: 0, toolCallsMax: 1, repeatPer1000: 0, repeatOnlyPer1000: 0, stockAnswerPer1000: 0, agentCacheSize: 8 },
    faultPhaseMs: 60_000,
    settleMs: 60_000,
  };
  return runSpec({ scenario: 'hostile-text', bugs: [], seed: 1, plan }, { sql });
}

/** The fault events of a trace, by the kernel's own kinds (independent of the viewer's labels). */
export function faultSteps(result: RunResult): number[] {
  const kinds = new Set(['fault', 'proc.kill', 'net.drop', 'net.duplicate', 'net.reset', 'net.partition', 'net.hold', 'disk.crash', 'sql.busy']);
  return result.sim.trace.events.filter((event) => kinds.has(event.kind)).map((event) => event.index);
}

export const chromiumPath = '/usr/bin/chromium';
export const chromiumArgs = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];
export const haveChromium = existsSync(chromiumPath);
export const viewport = { width: 1400, height: 1000 };

/** The failing run's artifacts command line (shown in its trace.html). */
export const failingRunCommand = 'run send-mid-turn --bugs send-flag --seed 19';

/** What the page functions use of the browser's globals (the project's TypeScript has no DOM library). */
export interface BrowserGlobals {
  getComputedStyle(element: unknown): { backgroundColor: string };
  scrollTo(x: number, y: number): void;
  location: { hash: string };
  __pwned?: number;
}

/** Jump to the first violation's step (its card's button), as a reviewer would; the page zooms in on it. */
export async function showFirstViolation(page: Page): Promise<void> {
  await page.locator('.violation').first().locator('button.show-step').click();
}

/** Then the view of the screenshot: the whole run fitted to the width, scrolled to the top. */
export async function fitForScreenshot(page: Page): Promise<void> {
  await page.locator('#zoom-fit').click();
  await page.evaluate(() => (globalThis as unknown as BrowserGlobals).scrollTo(0, 0));
}
