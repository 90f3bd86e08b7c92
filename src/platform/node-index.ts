/**
 * `armature/node` (Node only): the Node platform, for a boot that needs more than `boot({ dataDir,
 * root })` says — e.g. a platform of your own that wraps it (`boot({ platform })`).
 *
 * @packageDocumentation
 */
export { createNodePlatform, nodeProjectFiles, nodeProjectLayers, projectRoot } from './node.ts';
export type { NodePlatformOptions } from './node.ts';
