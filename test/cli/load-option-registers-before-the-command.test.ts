// --load: every `--load <module>` is taken out of the arguments, wherever it stands, before the command is parsed,
// so a registered scenario is a valid `run` argument and shows in its help.
import { describe, expect, it } from 'vitest';
import { LoadError, splitLoadOptions } from '../../sim/cli/load.ts';

describe('splitLoadOptions', () => {
  it('takes out each --load, in order, wherever it stands', () => {
    expect(splitLoadOptions(['--load', './a.ts', 'run', 'x', '--load=./b.js', '--seed', '1'])).toEqual({ modules: ['./a.ts', './b.js'], rest: ['run', 'x', '--seed', '1'] });
  });

  it('leaves what follows -- alone', () => {
    expect(splitLoadOptions(['list', '--', '--load', 'x'])).toEqual({ modules: [], rest: ['list', '--', '--load', 'x'] });
  });

  it('refuses --load without a module', () => {
    expect(() => splitLoadOptions(['list', '--load'])).toThrow(LoadError);
    expect(() => splitLoadOptions(['--load', '--json', 'list'])).toThrow('--load needs a module path');
  });
});
