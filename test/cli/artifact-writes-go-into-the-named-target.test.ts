// A file the user names is written into, never replaced (issue 42): a regular file, or a new one, is written whole
// (a temporary sibling renamed into place); a symbolic link stays a link and the file it points to gets the bytes; a
// named pipe's reader and a device get the bytes written through, and stay a pipe and a device. Run as root,
// `--junit /dev/null` used to turn /dev/null into a plain file. Each test works on real files in a scratch folder.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkWritableFile, prepareArtifactDir, writeArtifact, writeFolderWhole } from '../../sim/cli/real.ts';
import { cli, scratchDir } from './support.ts';

const folders: string[] = [];
const readers: ChildProcess[] = [];

afterEach(() => {
  // A reader whose pipe was replaced would wait for ever: end it, then remove the folders.
  for (const reader of readers.splice(0)) if (reader.exitCode === null) reader.kill();
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

function folder(): string {
  const dir = scratchDir();
  folders.push(dir);
  return dir;
}

const partialsIn = (dir: string): string[] => readdirSync(dir).filter((name) => name.includes('.partial-'));

/** A named pipe in `dir` and a `cat` already reading it into a file, so that opening it to write does not block. */
function pipeWithReader(dir: string): { fifo: string; received: Promise<Buffer> } {
  const fifo = join(dir, 'pipe');
  expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
  const out = openSync(join(dir, 'received'), 'w');
  const reader = spawn('cat', [fifo], { stdio: ['ignore', out, 'inherit'] });
  closeSync(out);
  readers.push(reader);
  // The folder is gone when a failed test's reader is ended in afterEach: then it received nothing.
  const received = new Promise<Buffer>((done) => reader.on('close', () => done(existsSync(join(dir, 'received')) ? readFileSync(join(dir, 'received')) : Buffer.alloc(0))));
  return { fifo, received };
}

describe('writeArtifact writes into the target the user named', () => {
  it('replaces a regular file whole, by a rename, and leaves no partial file', () => {
    const dir = folder();
    const path = join(dir, 'report.json');
    writeFileSync(path, 'old');
    const before = statSync(path).ino;
    writeArtifact(path, 'new');
    expect(readFileSync(path, 'utf8')).toBe('new');
    expect(statSync(path).ino).not.toBe(before);
    expect(partialsIn(dir)).toEqual([]);
  });

  it('creates an absent file, and the folders it needs', () => {
    const dir = folder();
    writeArtifact(join(dir, 'db', 'state.db'), new Uint8Array([1, 2, 3]));
    expect([...readFileSync(join(dir, 'db', 'state.db'))]).toEqual([1, 2, 3]);
    expect(partialsIn(join(dir, 'db'))).toEqual([]);
  });

  it('leaves a symbolic link a link and writes the file at the end of its chain', () => {
    const dir = folder();
    mkdirSync(join(dir, 'elsewhere'));
    const target = join(dir, 'elsewhere', 'junit.xml');
    writeFileSync(target, 'old');
    symlinkSync(target, join(dir, 'first'));
    symlinkSync('first', join(dir, 'link.xml'));
    writeArtifact(join(dir, 'link.xml'), '<testsuites/>');
    expect(lstatSync(join(dir, 'link.xml')).isSymbolicLink()).toBe(true);
    expect(readlinkSync(join(dir, 'link.xml'))).toBe('first');
    expect(lstatSync(join(dir, 'first')).isSymbolicLink()).toBe(true);
    expect(readFileSync(target, 'utf8')).toBe('<testsuites/>');
    expect([...partialsIn(dir), ...partialsIn(join(dir, 'elsewhere'))]).toEqual([]);
  });

  it('creates the file a dangling link names, as the shell would, but makes no folder where it points', () => {
    const dir = folder();
    mkdirSync(join(dir, 'out'));
    symlinkSync('out/later.xml', join(dir, 'link.xml'));
    writeArtifact(join(dir, 'link.xml'), 'bytes');
    expect(lstatSync(join(dir, 'link.xml')).isSymbolicLink()).toBe(true);
    expect(lstatSync(join(dir, 'out', 'later.xml')).isFile()).toBe(true);
    expect(readFileSync(join(dir, 'out', 'later.xml'), 'utf8')).toBe('bytes');
    symlinkSync('missing/later.xml', join(dir, 'nowhere.xml'));
    expect(() => writeArtifact(join(dir, 'nowhere.xml'), 'bytes')).toThrow(/ENOENT/);
    expect(existsSync(join(dir, 'missing'))).toBe(false);
    expect(readlinkSync(join(dir, 'nowhere.xml'))).toBe('missing/later.xml');
    expect([...partialsIn(dir), ...partialsIn(join(dir, 'out'))]).toEqual([]);
  });

  it('writes through a named pipe: its reader gets every byte and it stays a pipe', async () => {
    const dir = folder();
    const { fifo, received } = pipeWithReader(dir);
    // More than a pipe's buffer (64 KiB), so the write goes on while the reader drains it.
    const data = Buffer.alloc(300_000, 'gatesim ');
    writeArtifact(fifo, data);
    expect(lstatSync(fifo).isFIFO()).toBe(true);
    expect(partialsIn(dir)).toEqual([]);
    expect((await received).equals(data)).toBe(true);
  });

  it('writes through a character device: /dev/null stays a device and gets no partial sibling', () => {
    writeArtifact('/dev/null', '<testsuites/>');
    expect(statSync('/dev/null').isCharacterDevice()).toBe(true);
    expect(lstatSync('/dev/null').isCharacterDevice()).toBe(true);
    expect(partialsIn('/dev')).toEqual([]);
  });
});

describe('the checks before a campaign accept what the writes can write into', () => {
  it('accepts a device, a pipe, /dev/stdout and links; refuses a link into a missing folder', () => {
    const dir = folder();
    expect(spawnSync('mkfifo', [join(dir, 'pipe')]).status).toBe(0);
    writeFileSync(join(dir, 'file'), '');
    symlinkSync('file', join(dir, 'link'));
    symlinkSync('later', join(dir, 'dangling'));
    symlinkSync('missing/later', join(dir, 'nowhere'));
    for (const path of ['/dev/null', '/dev/stdout', join(dir, 'pipe'), join(dir, 'link'), join(dir, 'dangling')]) expect(checkWritableFile(path, 'JUnit')).toBeUndefined();
    expect(checkWritableFile(join(dir, 'nowhere'), 'JUnit')).toMatch(/no directory .*missing/);
    expect(lstatSync(join(dir, 'pipe')).isFIFO()).toBe(true);
  });

  it('fills an artifacts folder given as a link to a folder in place, and the link stays', () => {
    const dir = folder();
    mkdirSync(join(dir, 'real'));
    symlinkSync('real', join(dir, 'artifacts'));
    expect(prepareArtifactDir(join(dir, 'artifacts'))).toBeUndefined();
    writeFolderWhole(join(dir, 'artifacts'), (into) => writeArtifact(join(into, 'report.json'), '{}'));
    writeFolderWhole(join(dir, 'artifacts', 'seed'), (into) => writeArtifact(join(into, 'trace.jsonl'), '\n'));
    expect(lstatSync(join(dir, 'artifacts')).isSymbolicLink()).toBe(true);
    expect(readdirSync(join(dir, 'real')).sort()).toEqual(['report.json', 'seed']);
    expect(readFileSync(join(dir, 'real', 'seed', 'trace.jsonl'), 'utf8')).toBe('\n');
  });
});

describe('fuzz --junit writes into a link and a named pipe', () => {
  const fuzz = (junit: string): ReturnType<typeof cli> => cli(['fuzz', '--scenario', 'exec-replay', '--runs', '2', '--seed', '1', '--junit', junit]);

  it('a link stays a link and the file it points to holds the report', () => {
    const dir = folder();
    writeFileSync(join(dir, 'target.xml'), 'old');
    symlinkSync('target.xml', join(dir, 'junit.xml'));
    expect(fuzz(join(dir, 'junit.xml')).status).toBe(0);
    expect(lstatSync(join(dir, 'junit.xml')).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(dir, 'target.xml'), 'utf8')).toContain('<testsuites');
  }, 120_000);

  it("a named pipe's reader gets the whole report and the pipe stays a pipe", async () => {
    const dir = folder();
    const { fifo, received } = pipeWithReader(dir);
    expect(fuzz(fifo).status).toBe(0);
    expect(lstatSync(fifo).isFIFO()).toBe(true);
    expect((await received).toString('utf8')).toMatch(/^<\?xml[\s\S]*<\/testsuites>\n?$/);
  }, 120_000);
});
