// The checkers' reader of a SQLite-era release's agent database (sim/checkers/agent-db.ts, issue 45 item 2): the image
// of a WAL-mode database (the main file with the committed frames of its -wal applied, by SQLite's file format), and
// its sessions and transcript events. The database is written by the simulated node:sqlite on the simulated disk
// (WAL, synchronous = NORMAL, no automatic checkpoint and the connection left open, so the commits stay in the -wal), with the agent schema's two
// tables as 2026.9.6 names them. Checked: every commit read back through the WAL (none without it); a WAL cut inside
// its last frame or with a flipped byte in it loses that commit and keeps the rest, as SQLite's recovery does; the
// image opens alone in another engine (sql.js, rollback mode). Needs no openclaw/ workspace.
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { agentDatabaseImage, loadAgentDbReader, readAgentDbRows, readWal } from '../../sim/checkers/agent-db.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { sqliteWorld } from './openclaw-node-sqlite-support.ts';

const path = '/home/openclaw/.openclaw/agents/main/agent/openclaw-agent.sqlite';

async function agentDbOnTheDisk(): Promise<{ main: Uint8Array | undefined; wal: Uint8Array | undefined; dispose: () => void }> {
  const world = await sqliteWorld('agent-db-reader');
  const { sqlite } = world.process('gateway');
  const db = new sqlite.DatabaseSync(path);
  db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA wal_autocheckpoint = 0;');
  db.exec('CREATE TABLE session_windows (session_id TEXT NOT NULL PRIMARY KEY, session_key TEXT NOT NULL) STRICT');
  db.exec('CREATE TABLE transcript_events (session_id TEXT NOT NULL, seq INTEGER NOT NULL, event_json TEXT, PRIMARY KEY (session_id, seq)) STRICT');
  db.prepare('INSERT INTO session_windows VALUES (?, ?)').run('s-0', 'agent:main:chat:0');
  const event = db.prepare('INSERT INTO transcript_events VALUES (?, ?, ?)');
  for (let seq = 1; seq <= 3; seq++) event.run('s-0', seq, JSON.stringify({ role: seq % 2 === 1 ? 'user' : 'assistant', text: `m${seq}` }));
  // Left open, as the release leaves its connection: the last close would checkpoint the WAL and remove it.
  const files = { main: world.sim.disk.peekBytes(path), wal: world.sim.disk.peekBytes(`${path}-wal`) };
  return { ...files, dispose: () => {
    db.close();
    world.dispose();
  } };
}

describe("the checkers' reader of the agent DB", () => {
  it('reads every commit through the WAL, and the image opens alone in another engine', async () => {
    await loadAgentDbReader();
    const { main, wal, dispose } = await agentDbOnTheDisk();
    try {
      expect(wal?.length).toBeGreaterThan(32);
      const contents = readWal(wal as Uint8Array);
      expect(contents?.ignoredFrames).toBe(0);
      const image = agentDatabaseImage(main, wal) as Uint8Array;
      expect([image[18], image[19]]).toEqual([1, 1]);
      const rows = readAgentDbRows(image);
      expect(rows.sessions).toEqual([{ sessionId: 's-0', sessionKey: 'agent:main:chat:0' }]);
      expect(rows.transcript.map((event) => [event.seq, JSON.parse(event.json ?? 'null').text])).toEqual([[1, 'm1'], [2, 'm2'], [3, 'm3']]);
      // The main file alone (no checkpoint ran) has none of it.
      const withoutWal = agentDatabaseImage(main, undefined);
      expect(withoutWal === undefined ? [] : readAgentDbRows(withoutWal).transcript).toEqual([]);
      const SQL = await loadSqlJs();
      const other = new SQL.Database(image);
      expect(other.exec('SELECT count(*) FROM transcript_events')[0]?.values).toEqual([[3]]);
      other.close();
    } finally {
      dispose();
    }
  });

  it("loses only the last commit when the WAL is cut inside its frame or a byte of it flipped, as SQLite's recovery", async () => {
    await loadAgentDbReader();
    const { main, wal, dispose } = await agentDbOnTheDisk();
    try {
      const full = wal as Uint8Array;
      const frame = 24 + (readWal(full)?.pageSize ?? 0);
      const cut = full.slice(0, full.length - Math.floor(frame / 2));
      const flipped = full.slice();
      flipped[full.length - 10] = (flipped[full.length - 10] ?? 0) ^ 0xff;
      for (const [name, damaged] of [['cut', cut], ['flipped', flipped]] as const) {
        const rows = readAgentDbRows(agentDatabaseImage(main, damaged) as Uint8Array);
        expect(rows.transcript.map((event) => event.seq), name).toEqual([1, 2]);
        expect(rows.sessions.length, name).toBe(1);
      }
    } finally {
      dispose();
    }
  });
});

// 2026.9.6 stores an event of 1 KiB or more zstd-compressed (level 1, with a checksum) when that saves a tenth:
// event_json null, event_zstd the bytes. This one was made by Node 24's zlib.zstdCompressSync as the release calls it.
const longEvent = JSON.stringify({ type: 'message', id: 'e-2', parentId: 'e-1', message: { role: 'assistant', content: [{ type: 'text', text: 'part of a long reply '.repeat(60) }] } });
const longEventZstd = 'KLUv/WRfBEUDAKIGFRmAqS0Gli5JO5WuVhaLaKBgdAbFjliyCToIaxHWhhSkyQxziqUdjm1KNN6b0B3ga3TNKXyvyVWHUjmu5aQTvAGCNZoSfQcKHTcc32qkUooYV4TsSQUAqcH5mwoXaKG8pMooDfMJ2JjzNg==';

async function agentDbWithCompressedEvents(blobs: Uint8Array[]): Promise<Uint8Array> {
  const world = await sqliteWorld('agent-db-reader-zstd');
  const { sqlite } = world.process('gateway');
  const db = new sqlite.DatabaseSync(path);
  try {
    db.exec('CREATE TABLE transcript_events (session_id TEXT NOT NULL, seq INTEGER NOT NULL, event_json TEXT, created_at INTEGER NOT NULL, event_zstd BLOB, PRIMARY KEY (session_id, seq)) STRICT');
    const event = db.prepare('INSERT INTO transcript_events VALUES (?, ?, ?, 0, ?)');
    event.run('s-0', 1, JSON.stringify({ type: 'message', id: 'e-1', parentId: null, message: { role: 'user', content: 'hi' } }), null);
    for (const [index, blob] of blobs.entries()) event.run('s-0', index + 2, null, blob);
    db.close();
    return world.sim.disk.peekBytes(path) as Uint8Array;
  } finally {
    world.dispose();
  }
}

describe("the checkers' reader of the agent DB, events stored compressed", () => {
  it('reads an event stored zstd-compressed as its JSON, beside one stored as text', async () => {
    await loadAgentDbReader();
    const rows = readAgentDbRows(await agentDbWithCompressedEvents([Buffer.from(longEventZstd, 'base64')]));
    expect(rows.transcript.map((event) => [event.seq, event.json])).toEqual([
      [1, JSON.stringify({ type: 'message', id: 'e-1', parentId: null, message: { role: 'user', content: 'hi' } })],
      [2, longEvent],
    ]);
  });

  it.skipIf(typeof (zlib as { zstdCompressSync?: unknown }).zstdCompressSync !== 'function')('reads what this Node compresses as the release does (level 1, a checksum)', async () => {
    await loadAgentDbReader();
    const text = JSON.stringify({ type: 'message', id: 'e-3', parentId: 'e-2', message: { role: 'assistant', content: 'another long reply, '.repeat(80) } });
    const compress = (zlib as unknown as { zstdCompressSync: (data: Buffer, options: object) => Buffer; constants: Record<string, number> });
    const bytes = compress.zstdCompressSync(Buffer.from(text), { params: { [compress.constants.ZSTD_c_compressionLevel as number]: 1, [compress.constants.ZSTD_c_checksumFlag as number]: 1 } });
    const rows = readAgentDbRows(await agentDbWithCompressedEvents([new Uint8Array(bytes)]));
    expect(rows.transcript[1]?.json).toBe(text);
  });

  it('says which event does not decompress, at once', async () => {
    await loadAgentDbReader();
    const broken = Buffer.from(longEventZstd, 'base64');
    broken[20] = (broken[20] as number) ^ 0xff;
    const image = await agentDbWithCompressedEvents([broken]);
    expect(() => readAgentDbRows(image)).toThrow(/transcript event s-0:2 is stored zstd-compressed and does not decompress/);
  });
});
