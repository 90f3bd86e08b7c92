#!/usr/bin/env node
// Armature's CLI. The sources are TypeScript; tsx compiles them on the fly, so no build step is needed.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
