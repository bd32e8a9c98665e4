// Regenerate docs/trace-viewer.png, the README's picture of trace.html: the failing send-mid-turn run with send-flag
// on (seed 19) written to a temporary artifacts folder, opened in Debian's Chromium through playwright-core, jumped
// to its violation and fitted to the width, exactly as the browser test
// (test/cli/trace-viewer-renders-lanes-faults-and-violation.test.ts) views it; the test takes the same picture into
// its own temporary folder and never touches docs/. Usage: npm run screenshot [-- <out.png>].
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { writeArtifact } from '../sim/cli/real.ts';
import { writeArtifacts } from '../sim/cli/report.ts';
import { loadSqlJs } from '../sim/kernel/sqlite.ts';
import { chromiumArgs, chromiumPath, failingRunCommand, failingRunWithFaults, fitForScreenshot, haveChromium, showFirstViolation, viewport } from '../test/cli/viewer-support.ts';

const out = process.argv[2] ?? fileURLToPath(new URL('../docs/trace-viewer.png', import.meta.url));
if (!haveChromium) {
  console.error(`no Chromium at ${chromiumPath}: apt-get install chromium (as .ci/run does)`);
  process.exit(2);
}

const dir = mkdtempSync(join(tmpdir(), 'gatesim-screenshot-'));
const failing = await failingRunWithFaults(await loadSqlJs());
const browser = await chromium.launch({ executablePath: chromiumPath, args: chromiumArgs });
try {
  if (failing.verdict !== 'fail') throw new Error(`${failingRunCommand} passed: the screenshot would show no violation`);
  writeArtifacts(join(dir, 'failing'), failingRunCommand, failing);
  const page = await browser.newPage({ viewport });
  await page.goto(pathToFileURL(join(dir, 'failing', 'trace.html')).href);
  await showFirstViolation(page);
  await fitForScreenshot(page);
  writeArtifact(out, await page.screenshot());
  console.log(`wrote ${out}`);
} finally {
  await browser.close();
  failing.sim.dispose();
  rmSync(dir, { recursive: true, force: true });
}
