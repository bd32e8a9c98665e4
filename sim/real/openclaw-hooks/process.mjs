// The simulated process of one instance: pid, env, cwd, argv, hrtime and uptime on the simulated clock, nextTick,
// signal handlers (an emitter of the instance's own), stdout/stderr into the binding's log, and `kill(pid, 0)`
// answered by the simulated process table; any other property is loud.
import * as realEvents from 'node:events';

export function simulatedProcess(binding, timers, loud, getBuiltinModule) {
  const emitter = new realEvents.EventEmitter();
  const hrtimeNs = () => BigInt(binding.monotonicMs()) * 1_000_000n;
  const hrtime = (previous) => {
    let ns = hrtimeNs();
    if (Array.isArray(previous)) ns -= BigInt(previous[0]) * 1_000_000_000n + BigInt(previous[1]);
    return [Number(ns / 1_000_000_000n), Number(ns % 1_000_000_000n)];
  };
  hrtime.bigint = hrtimeNs;
  const stream = (name) =>
    loud.strict(`process.${name}`, {
      write: (chunk) => {
        binding.log(name, String(chunk));
        return true;
      },
      isTTY: false,
      columns: 80,
      rows: 24,
      fd: name === 'stdout' ? 1 : 2,
    });
  let proxy;
  const listen = (method) => (...args) => {
    emitter[method](...args);
    return proxy;
  };
  proxy = loud.strict('process', {
    env: binding.env,
    platform: 'linux',
    arch: 'x64',
    pid: binding.pid,
    ppid: binding.ppid,
    argv: ['/usr/bin/node', `${binding.packageRoot}/openclaw.mjs`],
    argv0: 'node',
    execArgv: [],
    execPath: '/usr/bin/node',
    title: 'openclaw',
    // Electron's and browser bundles' properties: absent in Node.
    type: undefined,
    browser: undefined,
    __nwjs: undefined,
    version: process.version,
    versions: process.versions,
    release: process.release,
    exitCode: undefined,
    cwd: () => binding.cwd,
    getBuiltinModule,
    chdir: loud.fn('process.chdir'),
    umask: () => 0o022,
    getuid: () => 1000,
    geteuid: () => 1000,
    getgid: () => 1000,
    getegid: () => 1000,
    hrtime,
    uptime: () => binding.monotonicMs() / 1000,
    nextTick: timers.nextTick,
    emitWarning: (warning) => binding.log('warning', String(warning?.message ?? warning)),
    on: listen('on'),
    once: listen('once'),
    off: listen('off'),
    addListener: listen('addListener'),
    prependListener: listen('prependListener'),
    removeListener: listen('removeListener'),
    removeAllListeners: listen('removeAllListeners'),
    listeners: (name) => emitter.listeners(name),
    listenerCount: (name) => emitter.listenerCount(name),
    emit: (...args) => emitter.emit(...args),
    stdout: stream('stdout'),
    stderr: stream('stderr'),
    // Signal 0 asks whether a process exists: the simulated process table answers (binding.processExists); any other
    // signal, or a binding without a process table, is not simulated.
    kill: (pid, signal) => {
      if (signal !== 0 || binding.processExists === undefined) throw loud('process.kill');
      if (typeof pid !== 'number' || !Number.isInteger(pid)) throw Object.assign(new TypeError(`The "pid" argument must be of type number. Received ${typeof pid}`), { code: 'ERR_INVALID_ARG_TYPE' });
      if (!binding.processExists(pid)) throw Object.assign(new Error('kill ESRCH'), { code: 'ESRCH', errno: -3, syscall: 'kill' });
      return true;
    },
    exit: loud.fn('process.exit'),
    // Node's internal exit (signal-exit checks that it is a function, and wraps it when asked to watch for an exit).
    reallyExit: loud.fn('process.reallyExit'),
    // signal-exit 3 keeps its emitter here (read first, set by the first copy that loads): the instance's own.
    __signal_exit_emitter__: undefined,
    abort: loud.fn('process.abort'),
    memoryUsage: loud.fn('process.memoryUsage'),
    // No cgroup limit on the simulated machine: what Node 24 answers unconstrained (2^64 - 1, as a number); 2026.9.6's
    // memory diagnostics read it at load (dist/diagnostic-*.mjs).
    constrainedMemory: () => 2 ** 64,
    // No permission model (Node runs without --permission): 2026.9.6's agent DB reads it before allowing extensions.
    permission: undefined,
    cpuUsage: loud.fn('process.cpuUsage'),
    resourceUsage: loud.fn('process.resourceUsage'),
  });
  return proxy;
}
