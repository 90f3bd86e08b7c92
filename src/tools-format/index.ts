/**
 * Tool declarations for every model provider: OpenAI chat completions and Responses, Anthropic,
 * Gemini and MCP, with strict modes, name aliases and the way back from a provider's call.
 * Browser-safe: plain functions over JSON.
 */
export { decodeArguments, decodeToolCall, formatTools, ToolFormatError } from './format-tools.ts';
export type { CallCodec, FormatOptions, FormattableTool, FormattedTools, ToolAnnotations } from './format-tools.ts';
export { inlineRefs, SchemaConversionError } from './json-schema.ts';
export type { JsonSchema } from './json-schema.ts';
export { toGeminiSchema } from './gemini-schema.ts';
export { toStrictSchema } from './strict-schema.ts';
export type { StrictDialect } from './strict-schema.ts';
export { aliasNames, NAME_RULES, TOOL_FORMATS, toolNameFromProvider } from './tool-names.ts';
export type { NameRule, ToolFormat } from './tool-names.ts';
