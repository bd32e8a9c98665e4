// The trace viewer in a real browser: Debian's Chromium driven by playwright-core opens trace.html of a failing run
// from a file:// URL and finds the swimlanes, a mark for every fault where it landed, the violation highlighted at its
// step, the chat beside the durable transcripts, no network request at all, and hostile run text shown as text. It
// takes the screenshot the README shows, into its temporary folder (`npm run screenshot` saves it as
// docs/trace-viewer.png). Without /usr/bin/chromium the browser tests are skipped with a message, and a test fails
// when GATESIM_REQUIRE_CHROMIUM=1 (.ci/run sets it, and installs Chromium).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeArtifacts } from '../../sim/cli/report.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import type { RunResult } from '../../sim/run/harness.ts';
import {
  type BrowserGlobals,
  chromiumArgs,
  chromiumPath,
  failingRunCommand,
  failingRunWithFaults,
  faultSteps,
  fitForScreenshot,
  haveChromium,
  hostileText,
  runWithHostileText,
  showFirstViolation,
  viewport,
} from './viewer-support.ts';

const requireChromium = process.env.GATESIM_REQUIRE_CHROMIUM === '1';
if (!haveChromium && !requireChromium) console.warn(`trace viewer browser tests skipped: no Chromium at ${chromiumPath} (apt-get install chromium, as .ci/run does)`);

const sql = await loadSqlJs();
const pngSignature = '89504e470d0a1a0a';

it('finds Chromium where it is required (GATESIM_REQUIRE_CHROMIUM=1, as in .ci/run)', () => {
  if (requireChromium) expect(haveChromium, `Chromium is missing at ${chromiumPath}: .ci/run installs it with apt-get install chromium`).toBe(true);
});

describe.skipIf(!haveChromium)('trace.html in Chromium', () => {
  let browser: Browser;
  let dir: string;
  let failing: RunResult;
  let hostile: RunResult;

  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: chromiumPath, args: chromiumArgs });
    dir = mkdtempSync(join(tmpdir(), 'gatesim-viewer-'));
    failing = await failingRunWithFaults(sql);
    hostile = await runWithHostileText(sql);
    writeArtifacts(join(dir, 'failing'), failingRunCommand, failing);
    writeArtifacts(join(dir, 'hostile'), 'hostile-text', hostile);
  });

  afterAll(async () => {
    await browser?.close();
    failing?.sim.dispose();
    hostile?.sim.dispose();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  /** Open an artifacts directory's trace.html; every request the page makes is recorded, page errors fail the test. */
  async function open(name: string): Promise<{ page: Page; url: string; requests: string[]; errors: string[] }> {
    const page = await browser.newPage({ viewport });
    const url = pathToFileURL(join(dir, name, 'trace.html')).href;
    const requests: string[] = [];
    const errors: string[] = [];
    page.on('request', (request) => requests.push(request.url()));
    page.on('pageerror', (error) => errors.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    await page.goto(url);
    return { page, url, requests, errors };
  }

  it('shows every lane, marks every fault where it landed, and highlights the violation at its step', async () => {
    expect(failing.verdict).toBe('fail');
    const kills = failing.sim.trace.events.filter((event) => event.kind === 'proc.kill');
    expect(kills.length, 'the plan of seed 19 kills processes').toBeGreaterThan(0);
    const { page, url, requests, errors } = await open('failing');

    for (const lane of ['faults', 'user', 'gateway', 'runner', 'tool-server', 'node-host', 'network', 'disk', 'databases']) {
      await expect(page.locator(`.lane[data-lane="${lane}"]`).isVisible(), `lane ${lane}`).resolves.toBe(true);
    }
    const faults = faultSteps(failing);
    const marked = await page.locator('.lane[data-lane="faults"] i.fault').evaluateAll((marks) => marks.map((mark) => Number(mark.getAttribute('data-i'))));
    expect(marked).toEqual(expect.arrayContaining(faults));
    for (const kill of kills) {
      const lane = String(kill.fields.name);
      const mark = page.locator(`.lane[data-lane="${lane}"] i.fault[data-i="${kill.index}"]`);
      await expect(mark.getAttribute('title')).resolves.toContain(`SIGKILL ${lane}`);
    }

    const violation = failing.violations[0];
    if (violation === undefined) throw new Error('no violation');
    const card = page.locator('.violation').first();
    await expect(card.getAttribute('data-invariant')).resolves.toBe(violation.invariant);
    await expect(card.locator('.message').textContent()).resolves.toBe(violation.message);
    await expect(page.locator(`.vline[data-step="${violation.step}"]`).isVisible()).resolves.toBe(true);
    const row = page.locator(`#ev-${violation.step}`);
    await expect(row.getAttribute('class')).resolves.toContain('violation-step');
    await expect(row.locator('td').first().evaluate((cell) => (globalThis as unknown as BrowserGlobals).getComputedStyle(cell).backgroundColor)).resolves.toBe('rgb(198, 40, 40)');
    await expect(page.locator(`.track i.at-violation[data-i="${violation.step}"]`).count()).resolves.toBeGreaterThan(0);

    await showFirstViolation(page);
    await expect(page.locator('#detail').textContent()).resolves.toContain(`#${violation.step} `);
    await expect(page.locator('#zoom-level').textContent()).resolves.toBe('8x');

    await fitForScreenshot(page);
    const screenshotPath = join(dir, 'trace-viewer.png');
    await page.screenshot({ path: screenshotPath });
    expect(readFileSync(screenshotPath).subarray(0, 8).toString('hex'), 'a PNG').toBe(pngSignature);
    expect(errors).toEqual([]);
    expect(requests).toEqual([url]);
    await page.close();
  });

  it('shows the chat as the user saw it beside the JSONL transcript and the state.db rows', async () => {
    const { page, errors } = await open('failing');
    const session = page.locator('.session').first();
    const userSaid = failing.sim.trace.events.filter((event) => event.kind === 'model.user-says').map((event) => String(event.fields.text));
    const shown = failing.sim.trace.events.filter((event) => event.kind === 'model.visible').map((event) => String(event.fields.text));
    await expect(session.locator('.chat .from-user .text').allTextContents()).resolves.toEqual(userSaid);
    await expect(session.locator('.chat .from-bot .text').allTextContents()).resolves.toEqual(shown);
    await expect(session.locator('.jsonl .entry').count()).resolves.toBeGreaterThan(0);
    await expect(session.locator('.statedb .entry').count()).resolves.toBeGreaterThan(0);
    const firstShown = failing.sim.trace.events.find((event) => event.kind === 'model.visible');
    if (firstShown === undefined) throw new Error('nothing was shown');
    await session.locator(`.chat a.step[data-step="${firstShown.index}"]`).click();
    await expect(page.evaluate(() => (globalThis as unknown as BrowserGlobals).location.hash)).resolves.toBe(`#ev-${firstShown.index}`);
    await expect(page.locator('#detail').textContent()).resolves.toContain(`#${firstShown.index} `);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('shows hostile run text as text: no injected script runs, no element is injected', async () => {
    const { page, url, requests, errors } = await open('hostile');
    await expect(page.evaluate(() => (globalThis as unknown as BrowserGlobals).__pwned)).resolves.toBeUndefined();
    await expect(page.locator('script').count()).resolves.toBe(1);
    await expect(page.locator('img').count()).resolves.toBe(0);
    await expect(page.locator('.chat .from-user .text').first().textContent()).resolves.toContain(hostileText);
    expect(errors).toEqual([]);
    expect(requests).toEqual([url]);
    await page.close();
  });
});
