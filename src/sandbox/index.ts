/**
 * Confined workers: the one way Armature runs agent-made JavaScript (tools and upgrades).
 * Node: a child process under the permission model. Browsers: a locked-down module Web Worker.
 */
export { createConfinedWorker } from './confined-worker.ts';
export type { Capability, CallOptions, ConfinedWorker, ConfinedWorkerLimits, ConfinedWorkerOptions, ModuleDescription, RestartReason, StopReason } from './confined-worker.ts';
export { AgentCodeError, SandboxError } from './errors.ts';
export type { SandboxErrorCode } from './errors.ts';
export type { NetworkPolicy, LogLevel } from './protocol.ts';
export { normalizeNetworkPolicy, networkAllows } from './network-policy.ts';
export { SANDBOX_WORKER_CSP, SANDBOX_WORKER_PATH } from './worker-script.ts';
