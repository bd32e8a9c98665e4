// Wiring: the processes of the system under test (gateway, tool server, runner, node host) and the node host's
// command entry that the workload drives. The world (platform, LLM API, deployed config) is built outside src/ and
// reaches the model only through the ports it is handed: the LLM API and a reader of the deployed config generation.
import { assert } from './assert.ts';
import { type ModelConfig } from './config.ts';
import type { ModelEnvironment } from './environment.ts';
import { Dashboard, dashboardName } from './dashboard.ts';
import { gatewayMain } from './gateway.ts';
import { ExecTool, NodeHost } from './node-host.ts';
import type { ProcessMain } from './ports.ts';
import { gatewayName, nodeHostName } from './protocol.ts';
import { runnerMain, runnerName } from './runner.ts';
import { toolServerMain, toolServerName } from './tool-server.ts';

export { nodeHostName };
export type { ModelEnvironment } from './environment.ts';


export interface LinkSpec {
  from: string;
  to: string;
  reconnecting: boolean;
}

/** The model, built: its processes (by name), the node host entry and the reconnecting links. */
export interface BuiltModel {
  config: ModelConfig;
  /** The node host's command entry (a workload event asks it to run a command). */
  nodeHost: NodeHost;
  /** Hermes' dashboard backend, a second writer of state.db (knob `dashboard`); the workload types its turns. */
  dashboard?: Dashboard;
  /** Start order matters only for the trace; every process tolerates the others being down. */
  processes: { name: string; main: ProcessMain }[];
  links: LinkSpec[];
}

/** The processes a user may replace with a component of their own, written against the ports (src/ports.ts). */
export const replaceableProcesses = [gatewayName, toolServerName, runnerName] as const;
/** The name of a process a user may replace. */
export type ReplaceableProcess = (typeof replaceableProcesses)[number];

/** Builds a process's main from the model's configuration and environment, once per run. */
export type ComponentFactory = (config: ModelConfig, env: ModelEnvironment) => ProcessMain;

/** Replacements for some of the model's processes; the rest stay the built-in ones. */
export type ModelComponents = Partial<Record<ReplaceableProcess, ComponentFactory>>;

/** Build the model, with some processes replaced by components of one's own (written against the ports). */
export function buildModel(config: ModelConfig, env: ModelEnvironment, components: ModelComponents = {}): BuiltModel {
  // With a node-event ingestion that authorizes exec events against the gateway's own system.run invokes, the world's
  // commands reach the node host through the gateway (node-host.ts ExecTool).
  const execTool = env.gatewayParts?.systemRunInvokes === true ? new ExecTool(gatewayName) : undefined;
  const nodeHost = new NodeHost('node-1', gatewayName, execTool);
  for (const name of Object.keys(components)) {
    assert((replaceableProcesses as readonly string[]).includes(name), `cannot replace process "${name}" (replaceable: ${replaceableProcesses.join(', ')})`);
  }
  const own = (name: ReplaceableProcess, builtin: ProcessMain): ProcessMain => components[name]?.(config, env) ?? builtin;
  // Spawned only in runs that have it, so every other run keeps its processes (and its trace).
  const dashboard = config.knobs.dashboard ? new Dashboard(env.llm) : undefined;
  const dashboardProcess = dashboard === undefined ? [] : [{ name: dashboardName, main: (ctx: Parameters<ProcessMain>[0]) => dashboard.main(ctx) }];
  return {
    config,
    nodeHost,
    ...(dashboard === undefined ? {} : { dashboard }),
    processes: [
      { name: gatewayName, main: own(gatewayName, (ctx) => gatewayMain(ctx, config, env.sessionManagerFactory, env.gatewayParts, execTool, env.llm)) },
      { name: toolServerName, main: own(toolServerName, (ctx) => toolServerMain(ctx, config.bugs, config.knobs.toolRowIds)) },
      { name: runnerName, main: own(runnerName, (ctx) => runnerMain(ctx, config, env)) },
      { name: nodeHostName, main: (ctx) => nodeHost.main(ctx) },
      ...dashboardProcess,
    ],
    links: [
      { from: nodeHostName, to: gatewayName, reconnecting: true },
      { from: gatewayName, to: nodeHostName, reconnecting: true },
    ],
  };
}
