/** PythonTool's options (`boot({ config: { PythonTool: {...} } })`), checked at boot. */
import * as z from 'zod';
import { numberOption, timeoutOption } from '../../src/kernel/config-schema.ts';

export const PythonToolConfigSchema = z.strictObject({
  readyTimeoutMs: timeoutOption('How long execute_python waits for the runtime to become ready, in ms. Default: 120000.'),
  slowCallMs: numberOption('A call_tool slower than this raises a tool-bridge:slow event and a log line, in ms. Default: 5000.'),
});

/** PythonTool's options. */
export type PythonToolConfig = z.input<typeof PythonToolConfigSchema>;

declare module '../../src/kernel/config-schema.ts' {
  interface ArmatureConfig {
    PythonTool: PythonToolConfig;
  }
}
