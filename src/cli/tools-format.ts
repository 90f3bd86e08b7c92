/** `armature tools --format <provider> [--strict]`: the persona's tools as one provider declares them. */
import type { ArmatureSystem } from '../kernel/boot/boot.ts';
import { formatTools, ToolFormatError } from '../tools-format/format-tools.ts';
import { TOOL_FORMATS, type ToolFormat } from '../tools-format/tool-names.ts';
import type { CliIo } from './cli-io.ts';
import { UsageError } from './usage-error.ts';

/**
 * Prints `{ format, strict, tools, aliases, warnings }` as JSON: `tools` goes into the provider's
 * request as is; `aliases` maps names the provider will call back to the tools' own names.
 */
export function printFormattedTools(sys: ArmatureSystem, format: string, strict: boolean, io: CliIo): number {
  if (!TOOL_FORMATS.includes(format as ToolFormat)) throw new UsageError(`--format takes one of ${TOOL_FORMATS.join(', ')}, got ${JSON.stringify(format)}`);
  let r;
  try {
    r = formatTools(sys.tools.getToolDeclarations(), format as ToolFormat, { strict });
  } catch (e) {
    if (e instanceof ToolFormatError) throw new UsageError(e.message);
    throw e;
  }
  io.out(JSON.stringify({ format: r.format, strict: r.strict, tools: r.tools, aliases: r.aliases, warnings: r.warnings }, null, 2));
  for (const w of r.warnings) io.err(`warning: ${w}`);
  return 0;
}
