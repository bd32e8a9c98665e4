// Colour for human-readable output, decided once per process: on when stdout is a terminal, off when it is piped
// (a CI log included), off with --no-color or NO_COLOR, on with FORCE_COLOR. picocolors' own default turns colour on
// whenever CI is set, which puts escape codes into piped logs, so its decision is not used.
import picocolors from 'picocolors';

export function colorEnabled(argv: readonly string[], env: NodeJS.ProcessEnv, stdoutIsTty: boolean): boolean {
  if (argv.includes('--no-color')) return false;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '' && env.FORCE_COLOR !== '0') return true;
  return stdoutIsTty && env.TERM !== 'dumb';
}

export const pc = picocolors.createColors(colorEnabled(process.argv, process.env, process.stdout.isTTY === true));
