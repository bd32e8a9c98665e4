// The command line. Exit codes: 0 every invariant held, 1 an invariant was violated, 2 bad usage or bad input
// (one clear line on stderr, no stack trace).
import { Command, CommanderError, InvalidArgumentError } from 'commander';
import pc from 'picocolors';
import { runKernelWorkload } from './kernel-workload.ts';
import { freshSeed } from './real.ts';
import { loadSqlJs } from './sqlite.ts';

class UsageError extends Error {}

function parseSeed(value: string): number {
  if (!/^\d{1,15}$/.test(value)) throw new InvalidArgumentError(`seed must be a non-negative integer, got "${value}"`);
  return Number(value);
}

async function demo(options: { seed?: number; json?: boolean }): Promise<number> {
  const sql = await loadSqlJs();
  const seed = options.seed ?? freshSeed();
  const result = await runKernelWorkload({ seed: String(seed), sql });
  result.sim.dispose();
  const report = {
    seed,
    stopReason: result.stopReason,
    steps: result.steps,
    simTimeMs: result.simTimeMs,
    crashes: result.crashes,
    traceHash: result.traceHash,
  };
  if (options.json === true) {
    process.stdout.write(`${JSON.stringify(report)}\n`);
  } else {
    process.stdout.write(
      `${pc.bold('gatesim kernel demo')}  seed ${pc.cyan(String(seed))}  traceHash ${pc.cyan(result.traceHash)}\n` +
        `  ${result.steps} steps over ${result.simTimeMs} ms simulated, stop: ${result.stopReason}, crashes: ${result.crashes}\n` +
        `  reproduce: npm start -- --seed ${seed}\n`,
    );
  }
  return result.crashes === 0 ? 0 : 1;
}

function program(): Command {
  const root = new Command('gatesim')
    .description('Deterministic simulation test bench for AI-agent chat gateways')
    .exitOverride()
    .showHelpAfterError(false)
    .configureOutput({ writeErr: () => {} });
  root
    .command('demo')
    .description('run the kernel demonstration workload (processes, faults, disk, SQLite) and print its traceHash')
    .option('--seed <n>', 'seed (default: a fresh one, printed)', parseSeed)
    .option('--json', 'print one JSON object')
    .action(async (options: { seed?: number; json?: boolean }) => {
      process.exitCode = await demo(options);
    });
  return root;
}

export async function main(argv: readonly string[]): Promise<number> {
  try {
    await program().parseAsync(argv as string[], { from: 'user' });
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version') return 0;
      process.stderr.write(`gatesim: ${error.message.replace(/^error: /, '')}\n`);
      return 2;
    }
    if (error instanceof UsageError) {
      process.stderr.write(`gatesim: ${error.message}\n`);
      return 2;
    }
    throw error;
  }
}

process.exitCode = await main(process.argv.slice(2));
