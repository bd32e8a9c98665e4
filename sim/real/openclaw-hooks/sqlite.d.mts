// Types of sim/real/openclaw-hooks/sqlite.mjs (the simulated node:sqlite) as the tests and sim/real/openclaw/ use them.
import type { SqliteFiles } from '../openclaw-hooks.mjs';

export function loadSimulatedSqlite(): Promise<void>;
export function simulatedSqliteLoaded(): boolean;
export function simulatedSqliteVersion(): string | undefined;
/** Close every connection whose files are on this disk (the end of a run); nothing of the simulated world sees it. */
export function releaseSimulatedSqlite(disk: object): void;

export type SqliteValue = null | number | bigint | string | Uint8Array;
export type SqliteRow = Record<string, SqliteValue>;

export interface StatementSync {
  get(...params: unknown[]): SqliteRow | undefined;
  all(...params: unknown[]): SqliteRow[];
  run(...params: unknown[]): { changes: number | bigint; lastInsertRowid: number | bigint };
  iterate(...params: unknown[]): IterableIterator<SqliteRow>;
  columns(): { column: string | null; database: string | null; name: string; table: string | null; type: string | null }[];
  setReadBigInts(enabled: boolean): void;
  setReturnArrays(enabled: boolean): void;
  setAllowBareNamedParameters(enabled: boolean): void;
  setAllowUnknownNamedParameters(enabled: boolean): void;
  readonly sourceSQL: string;
  readonly expandedSQL: string;
}

export interface DatabaseSync {
  open(): void;
  close(): void;
  exec(sql: string): void;
  prepare(sql: string): StatementSync;
  function(name: string, fn: (...args: never[]) => unknown): void;
  function(name: string, options: { deterministic?: boolean; directOnly?: boolean; useBigIntArguments?: boolean; varargs?: boolean }, fn: (...args: never[]) => unknown): void;
  location(dbName?: string): string | null;
  enableLoadExtension(allow: boolean): void;
  enableDefensive(active: boolean): void;
  readonly isOpen: boolean;
  readonly isTransaction: boolean;
}

export interface NodeSqlite {
  DatabaseSync: new (path: string | URL | Uint8Array, options?: Record<string, unknown>) => DatabaseSync;
  StatementSync: unknown;
  backup(source: DatabaseSync, path: string | URL, options?: { source?: string; target?: string }): Promise<number>;
  constants: Record<string, number>;
}

/** The module for one instance: its clock, PRNG and (for a database on a path) its incarnation's binary files. */
export function simulatedNodeSqlite(
  binding: { epochNowMs(): number; randomInt(min: number, max: number): number; sqliteFiles?: SqliteFiles; sqliteBusyPer1000?: number },
  loud: ((what: string) => Error) & { fn(what: string): (...args: unknown[]) => never },
): NodeSqlite;
