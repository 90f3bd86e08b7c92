// Entry of every Node worker thread Armature starts from its sources. Workers do not inherit the
// main thread's module hooks, so this plain-JS file registers them (tsx, `.py` as text) before
// importing the TypeScript entry.
import { workerData } from 'node:worker_threads';
import './source-hooks.mjs';

await import(workerData.__armatureEntry);
