// The simulation object: one seeded world (clock, scheduler, network, disk, SQLite, processes, trace) built from a
// seed string. Everything random is drawn from named sub-streams of the one seed; nothing reads the real world.
import type { SqlJsStatic } from 'sql.js';
import type { ProcessContext, ProcessMain, TraceValue } from '../../src/ports.ts';
import { SimClock } from './clock.ts';
import { SimDisk } from './disk.ts';
import { SimNetwork } from './network.ts';
import { type Incarnation, ProcessTable } from './process.ts';
import { Prng } from './prng.ts';
import { type Fence, Scheduler, type StopReason } from './scheduler.ts';
import { SimSqlite } from './sqlite.ts';
import { Trace } from './trace.ts';

export interface SimulationOptions {
  seed: string;
  sql: SqlJsStatic;
  stepsMax?: number;
  simTimeMsMax?: number;
  /** Keep trace events in memory (default true); the hash is computed either way. */
  keepTrace?: boolean;
  /** Quiet microtask hops that end a settle (scheduler.ts); default settleQuietHopsDefault. */
  settleQuietHops?: number;
}

export interface RunSummary {
  stopReason: StopReason;
  steps: number;
  simTimeMs: number;
  traceHash: string;
  crashes: number;
}

/** The deterministic machine one run executes in: scheduler, clock, network, disk, SQLite, processes and trace. */
export class Simulation {
  readonly prng: Prng;
  readonly clock = new SimClock();
  readonly trace: Trace;
  readonly scheduler: Scheduler;
  readonly processes: ProcessTable;
  readonly network: SimNetwork;
  readonly disk: SimDisk;
  readonly sqlite: SimSqlite;

  constructor(options: SimulationOptions) {
    this.prng = new Prng(options.seed);
    this.trace = new Trace(() => this.clock.nowMs(), options.keepTrace ?? true);
    const fence: Fence = { state: (owner) => this.processes.state(owner), defer: (owner, resume) => this.processes.defer(owner, resume) };
    this.scheduler = new Scheduler(
      this.clock,
      {
        stepsMax: options.stepsMax ?? 5_000_000,
        simTimeMsMax: options.simTimeMsMax ?? 7 * 24 * 3_600_000,
        ...(options.settleQuietHops === undefined ? {} : { settleQuietHops: options.settleQuietHops }),
      },
      fence,
    );
    this.trace.onEvent(() => this.scheduler.activity++);
    this.processes = new ProcessTable(this.scheduler, this.trace, (incarnation, main) =>
      this.start(incarnation, main),
    );
    this.network = new SimNetwork(this.scheduler, this.trace, this.processes, this.prng.fork('network'));
    this.disk = new SimDisk(this.scheduler, this.trace, this.prng.fork('disk'));
    this.sqlite = new SimSqlite(options.sql, this.trace, this.prng.fork('sqlite'));
  }

  spawn(name: string, main: ProcessMain): void {
    this.processes.spawn(name, main);
  }

  /** SIGKILL `name` now. */
  kill(name: string): boolean {
    return this.processes.kill(name);
  }

  /**
   * The machine that runs `processes` loses power: each running one dies (as a SIGKILL would) and the disk keeps
   * only what was written back. Returns the processes that were running.
   */
  powerLoss(processes: readonly string[]): string[] {
    this.trace.record('fault', { kind: 'power-loss' });
    const killed = processes.filter((name) => this.processes.kill(name));
    this.disk.powerLoss();
    return killed;
  }

  /** SIGSTOP `name` now (a stall): it makes no progress until cont(). */
  stop(name: string): boolean {
    return this.processes.stop(name);
  }

  /** SIGCONT `name` now. */
  cont(name: string): void {
    this.processes.cont(name);
  }

  restart(name: string, delayMs: number): void {
    this.processes.restart(name, delayMs);
  }

  /** Run `fn` as a kernel event at absolute simulated time `timeMs` (fault injection, workload). */
  at(timeMs: number, fn: () => void): void {
    this.scheduler.scheduleAt(timeMs, fn);
  }

  async run(): Promise<RunSummary> {
    const stopReason = await this.scheduler.run();
    const trace = this.trace;
    return {
      stopReason,
      steps: this.scheduler.steps,
      simTimeMs: this.clock.nowMs(),
      // Folded when first read (Trace.hash): a campaign's passing runs never read it.
      get traceHash(): string {
        return trace.hash;
      },
      crashes: this.processes.crashes.length,
    };
  }

  /** Release the SQLite engines (WebAssembly memory). */
  dispose(): void {
    this.sqlite.close();
  }

  private start(incarnation: Incarnation, main: ProcessMain): void {
    this.network.attach(incarnation);
    const ctx = this.context(incarnation);
    // main starts from an event owned by the incarnation, like every other resumption; after its start-up, if any.
    // A start-up the fault phase's end hurried (ProcessTable.hurryStartups) begins then, and only once.
    const startupMs = incarnation.startupMs;
    incarnation.begin = () => {
      if (incarnation.began) return;
      incarnation.began = true;
      if (startupMs > 0) this.trace.record('proc.ready', { name: incarnation.name, incarnation: incarnation.id, startupMs: this.clock.nowMs() - incarnation.startedAtMs });
      this.runTask(incarnation, 'main', () => main(ctx));
    };
    this.scheduler.schedule(startupMs, incarnation.begin, incarnation.id);
  }

  private runTask(incarnation: Incarnation, name: string, task: () => Promise<void>): void {
    this.scheduler.resumed++;
    task().then(
      () => {
        this.scheduler.activity++;
      },
      (error: unknown) => {
        this.scheduler.activity++;
        if (incarnation.alive) this.trace.record('model.task-failed', { process: incarnation.name, task: name });
        this.processes.crashed(incarnation, error);
      },
    );
  }

  private context(incarnation: Incarnation): ProcessContext {
    const scheduler = this.scheduler;
    const random = this.prng.fork(`process/${incarnation.name}/${incarnation.generation}`);
    return {
      name: incarnation.name,
      incarnation: incarnation.id,
      clock: {
        nowMs: () => {
          scheduler.activity++;
          return this.clock.nowMs();
        },
      },
      timers: {
        sleep: (delayMs) => incarnation.sleep(delayMs),
        setTimer: (delayMs, fn) => {
          scheduler.activity++;
          let cancelled = !incarnation.alive;
          if (!cancelled) {
            // A wake event: the callback may resolve promises whose continuations must settle at this instant.
            scheduler.scheduleWake(delayMs, () => {
              if (!cancelled) fn();
            }, incarnation.id);
          }
          return {
            cancel: () => {
              cancelled = true;
            },
          };
        },
      },
      random: {
        int: (min, max) => random.int(min, max),
        chance: (numerator, denominator) => random.chance(numerator, denominator),
        pick: (items) => random.pick(items),
      },
      net: {
        send: (to, payload) => this.network.send(incarnation, to, payload),
        receive: () => this.network.receive(incarnation),
        connection: (peer) => this.network.connection(incarnation.name, peer),
      },
      disk: {
        read: (path) => this.disk.read(incarnation, path),
        write: (path, data) => this.disk.write(incarnation, path, data),
        append: (path, data) => this.disk.append(incarnation, path, data),
        createExclusive: (path, data) => this.disk.createExclusive(incarnation, path, data),
        fsync: (path) => this.disk.fsync(incarnation, path),
        rename: (from, to) => this.disk.rename(incarnation, from, to),
        remove: (path) => this.disk.remove(incarnation, path),
        list: (prefix) => this.disk.list(incarnation, prefix),
      },
      sqlite: {
        open: (path, schemaSql) => this.sqlite.open(incarnation, path, schemaSql),
        idlePolls: (watch, intervalMs, dueMs) => this.sqlite.idlePolls(incarnation, scheduler, this.clock, watch, intervalMs, dueMs),
      },
      supervisor: {
        isRunning: (name) => this.processes.isRunning(name),
        startedAtMs: (name) => this.processes.current(name)?.startedAtMs,
        isAlive: (id) => this.processes.incarnation(id)?.alive === true,
        kill: (name) => {
          scheduler.activity++;
          if (!incarnation.alive) return false;
          this.trace.record('fault', { kind: 'supervisor-kill', by: incarnation.name, target: name });
          return this.processes.kill(name);
        },
        start: (name, delayMs) => {
          scheduler.activity++;
          if (incarnation.alive) this.processes.restart(name, delayMs);
        },
      },
      note: (kind: string, fields: Record<string, TraceValue>) => {
        scheduler.activity++;
        if (incarnation.alive) this.trace.record(`model.${kind}`, fields);
      },
      spawnTask: (name, task) => {
        scheduler.activity++;
        if (!incarnation.alive) return;
        scheduler.schedule(0, () => this.runTask(incarnation, name, task), incarnation.id);
      },
    };
  }
}
