// The ports through which the model (src/) touches the world. The model never reads a global clock, timer,
// random source, file system or socket: each process is handed a ProcessContext bound to its incarnation, and
// everything it does goes through it. The simulation kernel (sim/) implements these ports; a kill fences an
// incarnation, after which its primitives do nothing and its pending awaits never resume.

/** Simulated time in integer milliseconds. */
export interface Clock {
  nowMs(): number;
}

/** A seeded random stream (a sub-stream of the run's PRNG). */
export interface Random {
  /** Uniform integer in [min, max], inclusive. */
  int(min: number, max: number): number;
  /** True with probability numerator/denominator. */
  chance(numerator: number, denominator: number): boolean;
  pick<T>(items: readonly T[]): T;
}

/** A timer that can be cancelled. */
export interface TimerHandle {
  cancel(): void;
}

/** Sleeping and timers in simulated time, bound to the process's incarnation. */
export interface Timers {
  sleep(delayMs: number): Promise<void>;
  /** Run `fn` after delayMs in this incarnation, unless cancelled or the incarnation is killed first. */
  setTimer(delayMs: number, fn: () => void): TimerHandle;
}

/** A message received from the network. */
export interface Delivery<T = unknown> {
  from: string;
  payload: T;
  /**
   * The connection it came over, on a reconnecting link: a number of the pair of endpoints, new each time their
   * connection dies and is made again (as a gateway's connection id per WebSocket). Absent on a plain link.
   */
  connection?: number;
  /** Acknowledge a message that came over a reconnecting connection; a no-op on plain links. */
  ack(): void;
}

/** A process's network endpoint (named after the process). */
export interface Network {
  /** Fire and forget: the message may be delayed, dropped, duplicated or reordered by the link. */
  send(to: string, payload: unknown): void;
  /** The next message for this process's endpoint, in arrival order. */
  receive(): Promise<Delivery>;
  /** The current connection number with a peer over a reconnecting link (see Delivery.connection), where told. */
  connection?(peer: string): number;
}

/** The simulated disk: writes are volatile until fsync; a crash drops them and may tear the last append. */
export interface Disk {
  read(path: string): Promise<string | undefined>;
  /** Replace the whole file (volatile until fsync). */
  write(path: string, data: string): Promise<void>;
  append(path: string, data: string): Promise<void>;
  /** Create the file with `data` only if no file is at `path` (open with O_CREAT | O_EXCL, "wx"); false if one is. */
  createExclusive(path: string, data: string): Promise<boolean>;
  fsync(path: string): Promise<void>;
  /** Atomic. */
  rename(from: string, to: string): Promise<void>;
  remove(path: string): Promise<void>;
  /** Paths that start with `prefix`, sorted. */
  list(prefix: string): Promise<string[]>;
}

/** A value in a SQL row or parameter list. */
export type SqlValue = string | number | null;
/** A row returned by a query, by column name. */
export type SqlRow = Record<string, SqlValue>;
/** Positional SQL parameters. */
export type SqlParams = readonly SqlValue[];

/** What a write changed. */
export interface SqlRunResult {
  changes: number;
  lastInsertRowId: number;
}

/** Synchronous access inside a transaction: the body runs and commits atomically at one simulated instant. */
export interface SqlTransaction {
  query(sql: string, params?: SqlParams): SqlRow[];
  run(sql: string, params?: SqlParams): SqlRunResult;
}

/** A SQLite database on the simulated disk; committed transactions survive a SIGKILL. */
export interface SqlDatabase {
  readonly path: string;
  query(sql: string, params?: SqlParams): Promise<SqlRow[]>;
  /** A single autocommit write. May reject with SqliteBusyError when that fault is on. */
  run(sql: string, params?: SqlParams): Promise<SqlRunResult>;
  /** BEGIN, body, COMMIT; a throw rolls back. May reject with SqliteBusyError before the body runs. */
  transaction<T>(body: (tx: SqlTransaction) => T): Promise<T>;
  /**
   * SQLite's `PRAGMA data_version`, read without a call: a number that moves when a commit changes a row. Optional:
   * a host that has it can let idle pollers skip the polls that would find nothing (Sqlite.idlePolls).
   */
  dataVersion?(): number;
}

/** A database a poller watches, with the dataVersion read before its last poll. */
export interface WatchedDatabase {
  db: SqlDatabase;
  version: number;
}

/** Opens SQLite databases on the simulated disk. */
export interface Sqlite {
  /** Open (creating with `schemaSql` if new) the database kept at `path` on the simulated disk. */
  open(path: string, schemaSql: string): Promise<SqlDatabase>;
  /**
   * Optional: sleep as a poller with period intervalMs whose polls find nothing new, until the first poll instant
   * (now + k * intervalMs, k >= 1) at or after one of `watch` changed past its version or `dueMs` passed. A host
   * without it leaves the poller polling (idlePoll in src/idle-poll.ts).
   */
  idlePolls?(watch: readonly WatchedDatabase[], intervalMs: number, dueMs: number | undefined): Promise<void>;
}

/** A value of a trace note field. */
export type TraceValue = string | number | boolean | null;

/** Process supervision, as a container host has it: the gateway starts and kills the runner and tool server. */
export interface Supervisor {
  isRunning(name: string): boolean;
  /** When the running incarnation of `name` started (as `docker inspect` reports a container's start), if it runs. */
  startedAtMs?(name: string): number | undefined;
  /** Whether the process incarnation with this id (its pid: ids are unique on the machine) is alive (`kill(pid, 0)`). */
  isAlive(incarnation: number): boolean;
  /** SIGKILL. */
  kill(name: string): boolean;
  /** Start `name` after delayMs unless it is running by then. */
  start(name: string, delayMs: number): void;
}

/** Everything a process may touch, bound to one incarnation: after a kill its primitives do nothing. */
export interface ProcessContext {
  readonly name: string;
  readonly incarnation: number;
  readonly clock: Clock;
  readonly timers: Timers;
  readonly random: Random;
  readonly net: Network;
  readonly disk: Disk;
  readonly sqlite: Sqlite;
  readonly supervisor: Supervisor;
  /** Record a model step in the trace as `model.<kind>`. */
  note(kind: string, fields: Record<string, TraceValue>): void;
  /** Start a concurrent task in this incarnation; an exception in it crashes the process. */
  spawnTask(name: string, task: () => Promise<void>): void;
}

/** A transient SQLite "database is locked" error. */
export class SqliteBusyError extends Error {
  override name = 'SqliteBusyError';
  constructor(path: string) {
    super(`database is locked: ${path}`);
  }
}

/** A process's entry point: started at spawn and again at each restart. */
export type ProcessMain = (ctx: ProcessContext) => Promise<void>;

/**
 * The tools the agent offers the LLM: three that message the user, and `create_event`, an action on an external
 * service (a calendar) whose effect the world records.
 */
export type ToolName = 'send_message' | 'send_file' | 'add_reaction' | 'create_event';

/** A tool call as the LLM API returns it: the id is issued by the API, not by the caller. */
export interface LlmToolCall {
  id: string;
  name: ToolName;
  /** The payload the user sees (message text, file caption, or the reaction emoji), or the event to create. */
  text: string;
}

/** The LLM's answer: tool calls made mid-turn and the closing text. */
export interface LlmAnswer {
  toolCalls: LlmToolCall[];
  /** Closing text; `<message to="user">...</message>` blocks are what the user should see. */
  result: string;
  /**
   * The response stream broke after the whole closing text had streamed and before the stream's end, so no final
   * message was assembled (a partial stream): Hermes' agent recovers the streamed text as its final response.
   */
  streamCut?: boolean;
}

/** A message of the conversation history a request carries before its prompt. */
export interface LlmContextMessage {
  role: 'user' | 'assistant';
  content: string;
}

/**
 * What the agent sends the LLM: the session it speaks for, the conversation history it holds (Hermes'
 * `conversation_history`, oldest first; absent: none) and the prompt. Nothing else reaches the API.
 */
export interface LlmRequest {
  sessionKey: string;
  prompt: string;
  context?: readonly LlmContextMessage[];
  /**
   * The caller offers no tools and reads the answer as plain text, not `<message to>` blocks: a terminal or dashboard
   * chat (src/dashboard.ts). Absent: the gateway's agent, with its tools and its message blocks.
   */
  plain?: boolean;
}

/**
 * The remote LLM API (part of the world, not of any process). `complete` waits the response latency on the caller's
 * timers, so a caller killed meanwhile never receives the answer; it rejects with LlmTransientError on a transient
 * failure.
 */
export interface LlmApi {
  /** `abort`, when given, lets the caller give the request up: the answer then never reaches it (LlmAbortedError). */
  complete(request: LlmRequest, timers: Timers, abort?: LlmAbort): Promise<LlmAnswer>;
}

/** A caller's way to give up a request in flight (as an HTTP client aborts one: no answer reaches it afterwards). */
export class LlmAbort {
  private done = false;
  private readonly listeners: (() => void)[] = [];

  get aborted(): boolean {
    return this.done;
  }

  onAbort(listener: () => void): void {
    if (this.done) listener();
    else this.listeners.push(listener);
  }

  abort(): void {
    if (this.done) return;
    this.done = true;
    for (const listener of this.listeners.splice(0)) listener();
  }
}

/** The request was given up by its caller (LlmAbort) before its answer came. */
export class LlmAbortedError extends Error {
  override name = 'LlmAbortedError';
}

/** A transient HTTP error of the LLM API (the run loop retries the whole run). */
export class LlmTransientError extends Error {
  override name = 'LlmTransientError';
}

