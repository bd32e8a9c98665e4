// The one file through which the command line and the benchmarks touch the real world: the wall clock (for
// reporting how long a campaign took, never for simulation), real files (artifacts) and the process's entropy for
// choosing a fresh seed when the user gives none. Nothing in a simulation run may import this file; the lint rule
// and the tidy test exempt it alone.
import { accessSync, constants, mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { randomInt } from 'node:crypto';

/** Wall-clock milliseconds with sub-millisecond precision, for measuring, never for simulating. */
export function wallNowMs(): number {
  return performance.now();
}

/** A fresh seed for a run the user did not seed; it is printed so the run can be reproduced. */
export function freshSeed(): number {
  return randomInt(0, 2 ** 31);
}

export function writeArtifact(path: string, data: string | Uint8Array): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, data);
}

/** Create `dir` if needed and check it is writable; returns an error message instead of throwing. */
export function prepareArtifactDir(dir: string): string | undefined {
  try {
    mkdirSync(dir, { recursive: true });
    accessSync(dir, constants.W_OK);
    return undefined;
  } catch (error) {
    const code = (error as { code?: string }).code;
    return `cannot write artifacts to ${dir}${code === undefined ? '' : ` (${code})`}`;
  }
}
