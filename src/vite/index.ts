/**
 * `armature/vite` (Node only): the Vite plugin that serves and emits what a page booting Armature
 * needs. See `plugin.ts`.
 *
 * @packageDocumentation
 */
export { armature, armature as default } from './plugin.ts';
export type { ArmatureViteOptions, ArmatureVitePlugin } from './plugin.ts';
