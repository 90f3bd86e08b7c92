// Entry of every Node worker thread Armature starts. Workers do not inherit the main thread's
// module hooks, so this plain-JS file registers tsx before importing the TypeScript entry.
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
await import(workerData.__armatureEntry);
