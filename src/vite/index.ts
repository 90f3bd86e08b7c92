/** `armature/vite` (Node only): the Vite plugin. See `plugin.ts`. */
export { armature, armature as default } from './plugin.ts';
export type { ArmatureViteOptions, ArmatureVitePlugin } from './plugin.ts';
