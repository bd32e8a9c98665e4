// A release's npm packages run inside the instance, under the same hooks as its chunks (sim/real/openclaw/packages.ts):
// chalk sees the simulated process (no terminal, the simulated environment), dotenv reads the simulated disk into the
// simulated environment and leaves the host's alone, an ES module package (chalk) and a CommonJS one (dotenv) load
// through `module.createRequire` of a chunk, each instance gets its own package state, a package of gatesim's own
// (outside the openclaw/ workspace) is not found, and a package reaching an unsimulated built-in fails loudly.
// Without the openclaw/ workspace the suite skips, naming `npm ci --prefix openclaw`.
import { describe, expect, it } from 'vitest';
import { openclawBinding, OpenclawInstance } from '../../sim/real/openclaw/index.ts';
import { openclawMissing } from './openclaw-support.ts';

const missing = openclawMissing('package-loader tests', ['2026.4.24']);

const envFile = '/home/openclaw/.env';

function instance(files: Record<string, string> = {}) {
  const binding = openclawBinding('2026.4.24', {
    clock: { nowMs: () => 0 },
    timers: { sleep: () => Promise.reject(new Error('no timers')), setTimer: () => ({ cancel: () => undefined }) },
    random: { int: (min: number) => min } as never,
    alive: () => true,
    env: { TERM: 'xterm-256color' },
    fs: {
      existsSync: ((path: string) => path in files) as never,
      readFileSync: ((path: string, options?: unknown) => {
        const text = files[path];
        if (text === undefined) throw Object.assign(new Error(`ENOENT: ${path}`), { code: 'ENOENT' });
        return options === undefined ? Buffer.from(text) : text;
      }) as never,
    },
  });
  const loaded = new OpenclawInstance('2026.4.24', binding);
  const require = loaded.world.createRequire('file:///gatesim/openclaw-2026.4.24/dist/index.js');
  return { binding, loaded, require };
}

describe.skipIf(missing)("a release's npm packages under the hooks", () => {
  it('chalk (an ES module package) sees no terminal: no colour, whatever the host has', () => {
    const { binding, require } = instance();
    const chalk = (require('chalk') as { default: { red: (text: string) => string; level: number } }).default;
    expect(chalk.level).toBe(0);
    expect(chalk.red('alarm')).toBe('alarm');
    expect(binding.escapes).toEqual([]);
  });

  it("dotenv (CommonJS) reads the simulated disk into the simulated environment and leaves the host's alone", () => {
    const { binding, require } = instance({ [envFile]: 'GATESIM_DOTENV_PROBE=from-the-simulated-disk\n' });
    const dotenv = require('dotenv') as { config: (options: object) => { parsed?: Record<string, string> } };
    const result = dotenv.config({ path: envFile, quiet: true });
    expect(result.parsed).toEqual({ GATESIM_DOTENV_PROBE: 'from-the-simulated-disk' });
    expect(binding.env.GATESIM_DOTENV_PROBE).toBe('from-the-simulated-disk');
    expect(process.env.GATESIM_DOTENV_PROBE).toBeUndefined();
    expect(binding.escapes).toEqual([]);
  });

  it('each instance runs a package afresh: state set in one is not in the other', () => {
    const first = instance().require('chalk') as { default: { level: number } };
    first.default.level = 3;
    const second = instance().require('chalk') as { default: { level: number } };
    expect(second.default.level).toBe(0);
    expect(second.default).not.toBe(first.default);
  });

  it("a package outside the openclaw/ workspace is not found; an unsimulated built-in's use is loud", () => {
    const { binding, require } = instance();
    expect(() => require('fast-check')).toThrow(/Cannot find module 'fast-check'/);
    const http = require('node:http') as { createServer: () => unknown };
    expect(() => http.createServer()).toThrow(/gatesim: http\.createServer is not simulated/);
    expect(binding.escapes).toEqual(['http.createServer']);
  });
});
