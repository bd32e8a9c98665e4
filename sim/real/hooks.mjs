// Module hooks (node:module register) that put a real module written against Node's globals into the simulated
// world. For pi's session-manager.js only, its imports of `fs`, `fs/promises`, `crypto` and `uuid` resolve to
// small virtual modules, and its source gains one leading import that shadows the globals `Date` and `process`. Every
// virtual function forwards, at call time, to the binding that sim/real/bindings.ts makes current for the duration of
// one synchronous call into the module: the simulated disk of the calling incarnation, the run's PRNG and the
// simulated clock. Anything the module touches that is not simulated throws, so a new use cannot slip past.
// Exempt from the determinism ban (eslint.config.js, test/determinism-ban.test.ts): it must name the APIs it replaces.
const scheme = 'gatesim-real:';
const targets = [/\/@mariozechner\/pi-coding-agent\/dist\/core\/session-manager\.js$/];
const redirected = new Set(['fs', 'node:fs', 'fs/promises', 'node:fs/promises', 'crypto', 'node:crypto', 'uuid']);

const binding = "const binding = () => { const b = globalThis[Symbol.for('gatesim.real.binding')]; if (b === undefined || b.current === undefined) throw new Error('gatesim: a simulated module was called outside a simulated call'); return b.current; };\n";
const unsupported = (name) => `export function ${name}() { throw new Error('gatesim: ${name} is not simulated'); }\n`;

const sources = {
  fs:
    binding +
    ['existsSync', 'readFileSync', 'writeFileSync', 'appendFileSync', 'mkdirSync']
      .map((name) => `export function ${name}(...args) { return binding().fs.${name}(...args); }\n`)
      .join('') +
    ['openSync', 'readSync', 'closeSync', 'readdirSync', 'statSync'].map(unsupported).join('') +
    'export default { existsSync, readFileSync, writeFileSync, appendFileSync, mkdirSync };\n',
  'fs/promises': ['readdir', 'readFile', 'stat'].map(unsupported).join(''),
  crypto: `${binding}export function randomUUID() { return binding().uuidV4(); }\nexport default { randomUUID };\n`,
  uuid: `${binding}export function v7() { return binding().uuidv7(); }\nexport default { v7 };\n`,
  globals:
    binding +
    'const RealDate = globalThis.Date;\n' +
    'export class Date extends RealDate {\n' +
    '  constructor(...args) { if (args.length === 0) super(binding().nowMs()); else super(...args); }\n' +
    '  static now() { return binding().nowMs(); }\n' +
    '}\n' +
    'export const process = { cwd: () => binding().cwd };\n',
};

function isTarget(url) {
  return url !== undefined && targets.some((pattern) => pattern.test(url));
}

export async function resolve(specifier, context, nextResolve) {
  if (specifier.startsWith(scheme)) return { url: specifier, shortCircuit: true };
  if (isTarget(context.parentURL) && redirected.has(specifier)) {
    const name = specifier.replace(/^node:/, '');
    return { url: `${scheme}${name}`, shortCircuit: true };
  }
  return nextResolve(specifier, context);
}

export async function load(url, context, nextLoad) {
  if (url.startsWith(scheme)) {
    const source = sources[url.slice(scheme.length)];
    if (source === undefined) throw new Error(`gatesim: no virtual module ${url}`);
    return { format: 'module', source, shortCircuit: true };
  }
  if (isTarget(url)) {
    const loaded = await nextLoad(url, { ...context, format: 'module' });
    // One line prepended without a line break, so the module's line numbers stay as they are.
    const source = `import { Date, process } from '${scheme}globals'; ${String(loaded.source)}`;
    return { format: 'module', source, shortCircuit: true };
  }
  return nextLoad(url, context);
}
