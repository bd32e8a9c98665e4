// --load: every `--load <module>` is taken out of the arguments, wherever it stands, before the command is parsed,
// so a registered scenario is a valid `run` argument and shows in its help. A path is made absolute and a module given
// twice is kept once; a seed string names a file from its project root (loadName), and loadArgument names it back
// from the folder a command is typed in.
import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { LoadError, loadArgument, loadName, loadSpecifier, splitLoadOptions } from '../../sim/cli/load.ts';
import { scratchDir } from './support.ts';

/** A project with a package.json, setup/x.ts, a package under node_modules, and a subfolder sub/deeper. */
function project(): { root: string; file: string; deeper: string } {
  const root = realpathSync(scratchDir());
  writeFileSync(join(root, 'package.json'), '{"name":"p"}');
  mkdirSync(join(root, 'setup'));
  mkdirSync(join(root, 'sub', 'deeper'), { recursive: true });
  mkdirSync(join(root, 'node_modules', 'dep'), { recursive: true });
  writeFileSync(join(root, 'node_modules', 'dep', 'package.json'), '{"name":"dep"}');
  writeFileSync(join(root, 'node_modules', 'dep', 'setup.js'), '');
  writeFileSync(join(root, 'setup', 'x.ts'), '');
  return { root, file: join(root, 'setup', 'x.ts'), deeper: join(root, 'sub', 'deeper') };
}

describe('splitLoadOptions', () => {
  it('takes out each --load, in order, wherever it stands, a path made absolute', () => {
    expect(splitLoadOptions(['--load', './a.ts', 'run', 'x', '--load=./b.js', '--seed', '1', '--load', 'pkg/setup'], '/w')).toEqual({ modules: ['/w/a.ts', '/w/b.js', 'pkg/setup'], rest: ['run', 'x', '--seed', '1'] });
  });

  it('keeps a module given twice once, whatever the spelling: ./x, x (an existing file), absolute, a link to it, a file: URL', () => {
    const { root, file } = project();
    symlinkSync(file, join(root, 'link.ts'));
    const spellings = ['./setup/x.ts', 'setup/x.ts', file, './sub/../setup/x.ts', 'link.ts', pathToFileURL(file).href];
    const modules = splitLoadOptions(spellings.flatMap((spelling) => ['--load', spelling]).concat(['--load', 'pkg', '--load=pkg', 'list']), root).modules;
    expect(modules).toEqual([file, 'pkg']);
    expect(new Set(spellings.map((spelling) => loadSpecifier(spelling, root)))).toEqual(new Set([pathToFileURL(file).href]));
  });

  it('leaves what follows -- alone', () => {
    expect(splitLoadOptions(['list', '--', '--load', 'x'])).toEqual({ modules: [], rest: ['list', '--', '--load', 'x'] });
  });

  it('refuses --load without a module', () => {
    expect(() => splitLoadOptions(['list', '--load'])).toThrow(LoadError);
    expect(() => splitLoadOptions(['--load', '--json', 'list'])).toThrow('--load needs a module path');
  });
});

describe('the name of a loaded module, and the --load argument that loads it from a folder', () => {
  it('a file is named from its project root, from any folder; a package by its specifier', () => {
    const { root, file, deeper } = project();
    expect(loadName(file, root)).toBe('./setup/x.ts');
    expect(loadName(file, deeper)).toBe('./setup/x.ts');
    expect(loadName(pathToFileURL(file).href, deeper)).toBe('./setup/x.ts');
    expect(loadName('./setup/../setup/x.ts', deeper)).toBe('./setup/x.ts');
    expect(loadName('@my/setup', deeper)).toBe('@my/setup');
    // A file in an installed package belongs to the project that installed it.
    expect(loadName(join(root, 'node_modules', 'dep', 'setup.js'), root)).toBe('./node_modules/dep/setup.js');
    // A file in no project: from the project of the folder.
    const loose = join(realpathSync(scratchDir()), 'loose.ts');
    writeFileSync(loose, '');
    expect(loadName(loose, deeper)).toMatch(/^\.\.\/(\.\.\/)*.*loose\.ts$/);
    expect(join(root, loadName(loose, deeper))).toBe(loose);
  });

  it('loadArgument names it from the folder a command is typed in', () => {
    const { root, deeper } = project();
    expect(loadArgument('./setup/x.ts', root)).toBe('./setup/x.ts');
    expect(loadArgument('./setup/x.ts', deeper)).toBe('../../setup/x.ts');
    expect(loadArgument('./setup/x.ts', join(root, 'setup'))).toBe('./x.ts');
    expect(loadArgument('@my/setup', deeper)).toBe('@my/setup');
    // A project inside the project that does not hold the file: the one above it does.
    writeFileSync(join(root, 'sub', 'package.json'), '{"name":"inner"}');
    expect(loadArgument('./setup/x.ts', deeper)).toBe('../../setup/x.ts');
  });
});
