// The loader's speed-ups of issue 46 keep what an instance sees (sim/real/openclaw-hooks/compile.mjs chunkScope, the
// lazy ajv compile of package-loader.mjs): a chunk-like body compiled once and run in two instances, each with fresh
// module state (a module-level counter) and a global store of its own, under the plain scope chain and under the
// Proxy scope it replaced (the loader baseline), answering the same for every kind of name: an import, a simulated
// global, an absent one, a loud one, a write to a global, a write to an import. And ajv's compile, lazy, answers as
// ajv's own in an instance of 2026.4.24 (the only release that compiles schemas with ajv at module level), each
// instance with validators of its own. The runs with and without the speed-ups give the same trace hash:
// test/real/openclaw-loader-speedups.nightly.test.ts.
import { afterEach, describe, expect, it } from 'vitest';
import { compileChunk, chunkScope, createInstanceWorld, type HooksBinding } from '../../sim/real/openclaw-hooks.mjs';
import { openclawBinding, OpenclawInstance } from '../../sim/real/openclaw/index.ts';
import { noRandom, noTimers } from './no-world.ts';
import { openclawMissing } from './openclaw-support.ts';

const baselineKey = Symbol.for('gatesim.openclaw.loader-baseline');
const holder = globalThis as unknown as Record<symbol, boolean | undefined>;

afterEach(() => {
  holder[baselineKey] = undefined;
});

function binding(escapes: string[]): HooksBinding {
  return {
    epochNowMs: () => 1_700_000_000_000,
    monotonicMs: () => 0,
    setTimer: () => ({ cancel: () => undefined }),
    randomInt: (min: number) => min,
    uuidV4: () => '00000000-0000-4000-8000-000000000000',
    alive: () => true,
    escaped: (what: string) => escapes.push(what),
    log: () => undefined,
    pid: 4242,
    ppid: 1,
    env: { HOME: '/home/openclaw' },
    cwd: '/home/openclaw',
    home: '/home/openclaw',
    tmpdir: '/tmp',
    hostname: 'gatesim',
    packageRoot: '/gatesim/openclaw-test',
    packageHostDir: '/nonexistent',
  } as unknown as HooksBinding;
}

// A chunk-like body: a module-level counter (the module state a killed process forgets), a globalThis singleton, and
// reads of each kind of free identifier. `answers` is the import through which it reports.
const body = [
  'let counter = 0;',
  'counter += 1;',
  'globalThis.gatesimSingleton = (globalThis.gatesimSingleton ?? 0) + 1;',
  'const out = {};',
  'out.counter = counter;',
  'out.singleton = gatesimSingleton;',
  'out.now = Date.now();',
  'out.dateIsHost = Date === answers.hostDate;',
  'out.mathRandomIsHost = Math.random === answers.hostMath.random;',
  'out.objectIsHost = Object === answers.hostObject;',
  'out.navigator = typeof navigator;',
  'out.undeclared = typeof gatesimNeverDeclared;',
  'try { out.fetch = typeof fetch; } catch (error) { out.fetch = String(error.message); }',
  'try { gatesimNeverDeclared2 = 1; out.assignUndeclared = "assigned"; } catch (error) { out.assignUndeclared = error.constructor.name; }',
  'setTimeout = "replaced"; out.setTimeoutAfterWrite = setTimeout; out.setTimeoutOnGlobal = globalThis.setTimeout;',
  'try { answers = 1; out.assignImport = "assigned"; } catch (error) { out.assignImport = error.constructor.name; }',
  'out.globalIsGlobalThis = global === globalThis;',
  'out.toStringFound = typeof toString;',
  'answers.report(out);',
].join('\n');

function runIn(outer: ReturnType<typeof compileChunk>, escapes: string[]): Record<string, unknown> {
  const world = createInstanceWorld(binding(escapes));
  let reported: Record<string, unknown> | undefined;
  const answers = { hostDate: Date, hostMath: Math, hostObject: Object, report: (out: Record<string, unknown>) => (reported = out) };
  const own = Object.create(null) as Record<string, unknown>;
  own.__gatesimExports = () => undefined;
  Object.defineProperty(own, 'answers', { get: () => answers, enumerable: true });
  const generator = outer(chunkScope(world, own))();
  generator.next();
  generator.next();
  if (reported === undefined) throw new Error('the body did not report');
  return reported;
}

describe('the plain scope chain of a chunk instance', () => {
  const outer = compileChunk(body, '__gatesimExports({});', '/gatesim/openclaw-test/dist/fixture.js');

  const twoInstances = (baseline: boolean) => {
    holder[baselineKey] = baseline;
    const escapes: string[] = [];
    return { first: runIn(outer, escapes), second: runIn(outer, escapes), escapes };
  };

  it('gives each instance fresh module state and a store of its own, answering as the Proxy scope did', () => {
    const plain = twoInstances(false);
    const proxy = twoInstances(true);
    expect(plain).toEqual(proxy);
    expect(plain.first).toEqual(plain.second);
    expect(plain.first).toEqual({
      counter: 1,
      singleton: 1,
      now: 1_700_000_000_000,
      dateIsHost: false,
      mathRandomIsHost: false,
      objectIsHost: true,
      navigator: 'undefined',
      undeclared: 'undefined',
      fetch: 'gatesim: the global fetch is not simulated (a real OpenClaw component reached for the host)',
      assignUndeclared: 'ReferenceError',
      setTimeoutAfterWrite: 'replaced',
      setTimeoutOnGlobal: 'replaced',
      assignImport: 'TypeError',
      globalIsGlobalThis: true,
      toStringFound: 'function',
    });
    expect(plain.escapes).toEqual(['the global fetch', 'the global fetch']);
  });
});

const missing = openclawMissing('lazy ajv compile tests', ['2026.4.24']);

describe.skipIf(missing)("ajv's compile, lazy, in an instance of 2026.4.24", () => {
  const ajvOf = () => {
    const binding = openclawBinding('2026.4.24', { clock: { nowMs: () => 0 }, timers: noTimers, random: noRandom, alive: () => true });
    // ajv compiles its validators with Function, as the session-file repair's instance allows (session-file-repair.ts).
    binding.codeGeneration = true;
    const instance = new OpenclawInstance('2026.4.24', binding);
    const require = instance.world.createRequire('file:///gatesim/openclaw-2026.4.24/dist/index.js') as (specifier: string) => unknown;
    const Ajv = require('ajv') as new (options: object) => { compile: (schema: object) => ValidateFunction };
    return new Ajv({ allErrors: true, strict: false, removeAdditional: false });
  };
  interface ValidateFunction {
    (data: unknown): boolean;
    errors: unknown;
    schema: unknown;
  }
  const schema = { type: 'object', properties: { n: { type: 'integer', minimum: 1 } }, required: ['n'], additionalProperties: false };
  const answers = (ajv: ReturnType<typeof ajvOf>) => {
    const validate = ajv.compile(schema);
    const before = validate.errors;
    const results = [{ n: 2 }, { n: 0 }, {}, { n: 1, x: 1 }].map((data) => ({ valid: validate(data), errors: JSON.parse(JSON.stringify(validate.errors)) as unknown }));
    return { before, results, same: ajv.compile(schema) === validate, schemaKept: validate.schema === schema, asyncMarked: '$async' in validate };
  };

  it('answers as the eager compile: results, errors, one validator per schema; each instance has its own', () => {
    holder[baselineKey] = true;
    const eager = answers(ajvOf());
    holder[baselineKey] = false;
    const first = ajvOf();
    const lazy = answers(first);
    expect(lazy).toEqual(eager);
    expect(lazy.results.map((result) => result.valid)).toEqual([true, false, false, false]);
    expect(lazy.same).toBe(true);
    expect(first.compile(schema)).not.toBe(ajvOf().compile(schema));
  });
});
