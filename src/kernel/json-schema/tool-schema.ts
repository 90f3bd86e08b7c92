import * as z from 'zod';

/**
 * Compiles a tool's input JSON Schema into the zod validator the ToolRunner checks arguments
 * with. Every place that must accept exactly what the ToolRunner accepts (registration, the
 * schemas agents write for their own tools) goes through here. Throws zod's error when the
 * schema is not usable.
 */
export function compileInputSchema(schema: Record<string, unknown>): z.ZodType {
  return compileSchema(schema);
}

/**
 * Compiles any JSON Schema (an event payload's, a tool's input) through zod's JSON Schema path,
 * the one validator the system uses for data it did not type itself. Throws zod's error when the
 * schema is not usable.
 */
export function compileSchema(schema: Record<string, unknown>): z.ZodType {
  return z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
}
