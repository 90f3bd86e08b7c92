/**
 * Tool namespaces: how tools are grouped for agents (`from tools.<namespace> import ...`, one
 * SKILL.md each). A manifest tool's namespace comes from the upgrade that implements it; a tool
 * registered at run time under a namespace (an MCP server's) carries its own.
 */
import type { ToolDeclaration } from './manifest-schemas.ts';

/** The namespace of a module's tools: its id in snake_case, without a `_tool` suffix (`PythonTool` → `python`). */
export function namespaceOf(moduleId: string): string {
  return moduleId
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .replace(/_tool$/, '');
}

/** The namespace a tool belongs to: its own `namespace`, else its module's. */
export function namespaceOfTool(tool: Pick<ToolDeclaration, 'namespace' | 'module'>): string {
  return tool.namespace ?? namespaceOf(tool.module);
}

/**
 * The namespace of an agent-made upgrade's tools: its kebab-case id in snake_case
 * (`notes-index` → `notes_index`: `notes_index.notes_summary`, `from tools.notes_index import ...`).
 */
export function namespaceOfMadeUpgrade(id: string): string {
  return id.replace(/-/g, '_');
}
