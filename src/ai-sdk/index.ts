/**
 * `armature/ai-sdk`: Armature's Python with `call_tool` (and the persona's tools) as tools of an
 * agent built on the Vercel AI SDK. Needs the `ai` package, an optional peer of armature.
 *
 * @packageDocumentation
 */
export { createArmatureTools } from './armature-tools.ts';
export type { ArmatureToolOutput, ArmatureTools, ArmatureToolsOptions } from './armature-tools.ts';
export type { PythonProgress } from './python-stream.ts';
