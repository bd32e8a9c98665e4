// Wiring: the processes of the model and the world objects (platform, node host, model API, deployed config)
// that a simulation spawns and a scenario drives. src/ never imports sim/: the caller hands in a source of named
// random streams for the environment.
import { type ModelConfig } from './config.ts';
import { FakeModelApi } from '../sim/world/fake-model.ts';
import { gatewayMain, gatewayName, platformName } from './gateway.ts';
import { NodeHost } from './node-host.ts';
import { Platform } from '../sim/world/platform.ts';
import type { ProcessMain, Random } from './ports.ts';
import { runnerMain, runnerName } from './runner.ts';
import { toolServerMain, toolServerName } from './tool-server.ts';

import { nodeHostName } from './protocol.ts';

export { nodeHostName };

export interface ModelWorld {
  platform: Platform;
  nodeHost: NodeHost;
  modelApi: FakeModelApi;
  deployed: { configGeneration: number };
}

export interface LinkSpec {
  from: string;
  to: string;
  reconnecting: boolean;
}

export interface BuiltModel {
  config: ModelConfig;
  world: ModelWorld;
  /** Start order matters only for the trace; every process tolerates the others being down. */
  processes: { name: string; main: ProcessMain }[];
  links: LinkSpec[];
}

export function buildModel(config: ModelConfig, randomFor: (key: string) => Random): BuiltModel {
  const world: ModelWorld = {
    platform: new Platform(config.timers, gatewayName),
    nodeHost: new NodeHost('node-1', gatewayName),
    modelApi: new FakeModelApi((key) => randomFor(`model/${key}`)),
    deployed: { configGeneration: config.knobs.configGeneration },
  };
  const runnerWorld = { modelApi: world.modelApi, configGeneration: () => world.deployed.configGeneration };
  return {
    config,
    world,
    processes: [
      { name: platformName, main: (ctx) => world.platform.main(ctx) },
      { name: gatewayName, main: (ctx) => gatewayMain(ctx, config) },
      { name: toolServerName, main: (ctx) => toolServerMain(ctx, config.bugs) },
      { name: runnerName, main: (ctx) => runnerMain(ctx, config, runnerWorld) },
      { name: nodeHostName, main: (ctx) => world.nodeHost.main(ctx) },
    ],
    links: [
      { from: nodeHostName, to: gatewayName, reconnecting: true },
      { from: gatewayName, to: nodeHostName, reconnecting: true },
    ],
  };
}
