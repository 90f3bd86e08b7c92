/** The Workspace's options (`boot({ config: { Workspace: {...} } })`), checked at boot. */
import * as z from 'zod';
import { numberOption } from '../../src/kernel/config-schema.ts';

export const WorkspaceConfigSchema = z.strictObject({
  maxFileBytes: numberOption('Largest single file, in bytes. Default: 52428800 (50 MiB).'),
  maxTotalBytes: numberOption('The workspace\'s quota, in bytes, its hidden system folder included: a write past it fails with WORKSPACE_FULL. Default: 524288000 (500 MiB).'),
});

/** The Workspace's options. */
export type WorkspaceConfig = z.input<typeof WorkspaceConfigSchema>;

declare module '../../src/kernel/config-schema.ts' {
  interface ArmatureConfig {
    Workspace: WorkspaceConfig;
  }
}
