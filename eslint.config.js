// Lint: typescript-eslint's recommended rules plus the determinism ban of docs/ARCHITECTURE.md section 2. The ban
// covers src/, sim/, scenarios/ and lib/, except sim/cli/real.ts, the one file through which the CLI and the benchmarks
// touch the real world, and sim/real/hooks.mjs and sim/real/openclaw-hooks.mjs (with those of its parts under
// sim/real/openclaw-hooks/ that need it), the module hooks that must name the fs, crypto, uuid, Date and timer APIs they
// route into the simulation for a real module. test/determinism-ban.test.ts scans for the same tokens, so the ban
// holds whatever the linter does.
import tseslint from 'typescript-eslint';

const bannedProperties = [
  { object: 'Date', property: 'now', message: 'Read time from the Clock port (docs/ARCHITECTURE.md section 2).' },
  { object: 'Math', property: 'random', message: 'Draw from a seeded Prng sub-stream.' },
  { object: 'performance', property: 'now', message: 'Read time from the Clock port.' },
  { object: 'crypto', property: 'randomUUID', message: 'Derive ids from the seeded Prng.' },
  { object: 'crypto', property: 'getRandomValues', message: 'Draw from a seeded Prng sub-stream.' },
  { object: 'process', property: 'hrtime', message: 'Read time from the Clock port.' },
];

const bannedGlobals = ['setTimeout', 'setInterval', 'setImmediate', 'clearTimeout', 'clearInterval', 'queueMicrotask'].map(
  (name) => ({ name, message: 'Use the Timers port; only the scheduler moves time.' }),
);

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', 'artifacts/**', 'scratch/**', 'coverage/**'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['src/**/*.ts', 'sim/**/*.ts', 'sim/**/*.mjs', 'scenarios/**/*.ts', 'lib/**/*.ts'],
    // The adapters to the real world: the CLI's wall clock and files; the hooks that replace a real module's globals.
    ignores: [
      'sim/cli/real.ts',
      'sim/real/hooks.mjs',
      'sim/real/openclaw-hooks.mjs',
      // The parts of the OpenClaw hooks that name what they replace (the same list as test/determinism-ban.test.ts).
      'sim/real/openclaw-hooks/builtins.mjs',
      'sim/real/openclaw-hooks/fs.mjs',
      'sim/real/openclaw-hooks/globals.mjs',
      'sim/real/openclaw-hooks/package-loader.mjs',
      'sim/real/openclaw-hooks/timers.mjs',
      'sim/real/openclaw-hooks/workspace.mjs',
      'sim/real/openclaw-hooks/world.mjs',
    ],
    rules: {
      'no-restricted-properties': ['error', ...bannedProperties],
      'no-restricted-globals': ['error', ...bannedGlobals],
      'no-restricted-syntax': [
        'error',
        { selector: "NewExpression[callee.name='Date'][arguments.length=0]", message: 'new Date() reads the real clock.' },
        { selector: "CallExpression[callee.name='Date']", message: 'Date() reads the real clock.' },
        { selector: "CallExpression[callee.name='randomUUID']", message: 'Derive ids from the seeded Prng.' },
        { selector: "Literal[value=/\\b(random|randomblob)\\(|datetime\\('now'\\)|CURRENT_TIMESTAMP/i]", message: 'SQL must not read the real clock or randomness.' },
        { selector: "TemplateElement[value.raw=/\\b(random|randomblob)\\(|datetime\\('now'\\)|CURRENT_TIMESTAMP/i]", message: 'SQL must not read the real clock or randomness.' },
      ],
      'no-restricted-imports': [
        'error',
        {
          paths: ['fs', 'node:fs', 'fs/promises', 'node:fs/promises', 'timers', 'node:timers', 'timers/promises', 'node:timers/promises', 'net', 'node:net', 'crypto', 'node:crypto', 'perf_hooks', 'node:perf_hooks'].map(
            (name) => ({ name, message: 'Simulation code touches the world only through ports (docs/ARCHITECTURE.md section 2).' }),
          ),
        },
      ],
    },
  },
);
