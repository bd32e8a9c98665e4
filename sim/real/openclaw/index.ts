// Real OpenClaw components in the simulated world (docs/ARCHITECTURE.md section 8, issue 22): the pinned releases, the resolver
// from (release, source file, real name) to a chunk and export letter, instances of a release's chunks bound to one
// simulated incarnation, and the components gatesim can load.
export { findSourceFiles, parseChunk, releaseIndex, resolveOpenclawExport, type ResolvedExport } from './chunks.ts';
export { type ChunkClosure, chunkClosure } from './closure.ts';
export {
  openclawInstalled,
  openclawInstallCommand,
  OpenclawLookupError,
  openclawMissingMessage,
  type OpenclawRelease,
  openclawPinnedReleases,
  openclawReleases,
  openclawSqliteEraReleases,
  OpenclawWorkspaceMissingError,
  isOpenclawRelease,
} from './releases.ts';
export { OpenclawInstance } from './instance.ts';
export { type OpenclawBinding, openclawBinding, type OpenclawBindingOptions, openclawIncarnationBinding, simulatedDiskFs } from './binding.ts';
export {
  isLoadableOpenclawComponent,
  loadOpenclawComponent,
  type LoadableOpenclawComponent,
  type OpenclawComponent,
  openclawComponentNames,
  type OpenclawComponentName,
  openclawComponentOf,
  openclawComponents,
  type OpenclawSystemEvents,
  type RealEnqueueOptions,
  type RealSystemEvent,
  resolveOpenclawComponent,
} from './components.ts';
