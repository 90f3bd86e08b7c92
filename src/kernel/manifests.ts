import { quote, shortName } from './bounded.ts';
import { ArmatureError, ManifestError } from './errors.ts';
import { McpConfigFileSchema, type McpServers } from './mcp-servers.ts';
import {
  PersonaSchema,
  RootRegistrySchema,
  ToolManifestSchema,
  UpgradeRegistrySchema,
  parseManifest,
  type Persona,
  type ToolDeclaration,
  type UpgradeEntry,
} from './manifest-schemas.ts';
import { projectLayers, type ProjectFiles, type ProjectLayer } from '../platform/platform.ts';
import { closest } from './suggest.ts';
import { KERNEL_EVENT_PREFIXES } from './events.ts';

/** An upgrade id in kebab-case (`MadeUpgrades` -> `made-upgrades`): the prefix of its events. */
export function kebabOf(id: string): string {
  return id.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase();
}

/** Event prefixes agent-made upgrades may not take: every built-in upgrade's id in kebab-case and every prefix of their events. */
export function reservedEventPrefixes(manifests: Pick<Manifests, 'upgrades'>): string[] {
  return [...manifests.upgrades.values()].flatMap((u) => [kebabOf(u.id), ...u.events.map((e) => e.slice(0, e.indexOf(':')))]);
}

/** Tool manifest files, in the order they are read. */
export const TOOL_MANIFESTS = ['modules/tools-read.json', 'modules/tools-write.json'] as const;

/** Annotations a tool gets from the manifest it is declared in (its own `annotations` win). */
const FILE_ANNOTATIONS: Record<string, ToolDeclaration['annotations']> = {
  'modules/tools-read.json': { readOnlyHint: true },
  'modules/tools-write.json': { readOnlyHint: false, destructiveHint: true },
};

/** A tool declaration and the manifest file it came from. */
export interface DeclaredTool extends ToolDeclaration {
  /** E.g. `modules/tools-read.json`. */
  file: string;
}

/** Every manifest of the project, validated and cross-checked. */
export interface Manifests {
  upgrades: Map<string, UpgradeEntry>;
  personas: Map<string, Persona>;
  tools: Map<string, DeclaredTool>;
}

/** A file of `layer`, as messages name it: the package's by its path, a root's with the root's location. */
function fileIn(layer: ProjectLayer, file: string): string {
  return layer.kind === 'package' ? file : `${layer.location.replace(/\/$/, '')}/${file}`;
}

/** Why `what` of a root cannot be used: the package already has one of that name. */
function collision(what: string, file: string): string {
  return `${what} is one of the package's own: a root adds to the package, it cannot replace what it ships; rename yours (${file})`;
}

/**
 * Reads and validates `modules/upgrades.json`, the tool manifests and every persona, then checks
 * that they refer to each other correctly. A project with a user's root (`ProjectFiles.layers`)
 * reads the same files from the root too — each optional there — and adds them to the package's:
 * an upgrade, tool or persona id the package has is refused, naming both. Throws
 * {@link ManifestError} naming the file, the JSON path and what was expected.
 */
export async function readManifests(project: ProjectFiles): Promise<Manifests> {
  const registryFile = 'modules/upgrades.json';
  const upgrades = new Map<string, UpgradeEntry>();
  const layers = await projectLayers(project);
  const registries: { layer: ProjectLayer; file: string; entries: UpgradeEntry[] }[] = [];
  for (const layer of layers) {
    const file = fileIn(layer, registryFile);
    const text = layer.kind === 'package' ? await readOrThrow(layer.files, registryFile) : await readIfThere(layer.files, registryFile);
    if (text === undefined) continue;
    const registry = parseManifest(file, text, layer.kind === 'package' ? UpgradeRegistrySchema : RootRegistrySchema);
    const entries = registry.upgrades.map((u, i) => {
      const prior = upgrades.get(u.id);
      if (prior) throw new ManifestError(file, prior.base === undefined && layer.kind === 'root' ? `at $.upgrades[${i}].id: ${collision(`upgrade ${u.id}`, file)}` : `at $.upgrades[${i}].id: upgrade ${u.id} is registered twice`);
      const entry: UpgradeEntry = layer.moduleBase === undefined ? u : { ...u, base: layer.moduleBase };
      upgrades.set(u.id, entry);
      return entry;
    });
    registries.push({ layer, file, entries });
  }
  const eventOwners = new Map<string, string>();
  for (const { file, entries } of registries) {
    entries.forEach((u, i) => {
      u.events.forEach((name, j) => {
        const prefix = name.slice(0, name.indexOf(':'));
        if ((KERNEL_EVENT_PREFIXES as readonly string[]).includes(prefix)) throw new ManifestError(file, `at $.upgrades[${i}].events[${j}]: ${name} uses the kernel's prefix ${prefix}: declare it under the upgrade's own (e.g. "${kebabOf(u.id)}:...")`);
        const prior = eventOwners.get(name);
        if (prior) throw new ManifestError(file, `at $.upgrades[${i}].events[${j}]: event ${name} is already declared by ${prior}`);
        eventOwners.set(name, u.id);
      });
      [...u.dependencies, ...u.optionalDependencies].forEach((d) => {
        if (!upgrades.has(d)) throw new ManifestError(file, `at $.upgrades[${i}]: ${u.id} depends on ${d}, which is not registered${hint(d, upgrades.keys())}`);
      });
    });
  }

  const tools = new Map<string, DeclaredTool>();
  for (const layer of layers) {
    for (const name of TOOL_MANIFESTS) {
      const file = fileIn(layer, name);
      const text = layer.kind === 'package' ? await readOrThrow(layer.files, name) : await readIfThere(layer.files, name);
      if (text === undefined) continue;
      parseManifest(file, text, ToolManifestSchema).forEach((t, i) => {
        const prior = tools.get(t.name);
        if (prior) throw new ManifestError(file, layer.kind === 'root' && !prior.file.startsWith(layer.location.replace(/\/$/, '')) ? `at $[${i}].name: ${collision(`tool ${t.name}`, file)}` : `at $[${i}].name: tool ${t.name} is already declared in ${prior.file}`);
        if (!upgrades.has(t.module))
          throw new ManifestError(file, `at $[${i}].module: tool ${t.name} names module ${t.module}, which is not in ${registryFile}${hint(t.module, upgrades.keys())}`);
        tools.set(t.name, { ...t, annotations: { ...FILE_ANNOTATIONS[name], ...t.annotations }, file });
      });
    }
  }

  const personas = new Map<string, Persona>();
  for (const layer of layers) {
    for (const path of await layer.files.list('modules/personas', '.json')) {
      const file = fileIn(layer, path);
      const persona = parseManifest(file, await layer.files.read(path), PersonaSchema);
      const expectedId = path.slice('modules/personas/'.length, -'.json'.length);
      if (persona.id !== expectedId) throw new ManifestError(file, `at $.id: expected "${expectedId}" (the file name), got "${persona.id}"`);
      if (personas.has(persona.id)) throw new ManifestError(file, `at $.id: ${collision(`persona ${persona.id}`, file)}`);
      persona.upgrades.forEach((u, i) => {
        if (!upgrades.has(u)) throw new ManifestError(file, `at $.upgrades[${i}]: unknown upgrade ${u}${hint(u, upgrades.keys())}`);
      });
      persona.tools.forEach((t, i) => {
        // Namespaced entries name tools registered at run time (MCP servers): unknown until then.
        if (t !== '*' && !t.includes('.') && !tools.has(t)) throw new ManifestError(file, `at $.tools[${i}]: unknown tool ${t}${hint(t, tools.keys())}`);
      });
      personas.set(persona.id, persona);
    }
  }
  if (!personas.has('default')) throw new ManifestError('modules/personas/default.json', 'the default persona is missing');
  return { upgrades, personas, tools };
}

/** The persona called `id`, or an error listing the ones that exist. */
export function findPersona(manifests: Manifests, id: string): Persona {
  const persona = manifests.personas.get(id);
  if (persona) return persona;
  throw new ArmatureError(
    'UNKNOWN_PERSONA',
    `[boot] no persona ${quote(id)}${hint(id, manifests.personas.keys())}. Personas: ${[...manifests.personas.keys()].join(', ')} (modules/personas/<id>.json)`,
    { details: { persona: shortName(id) } },
  );
}

/**
 * Parses an `--mcp-config` file (`{ "mcpServers": { ... } }`). Throws a {@link ManifestError}
 * naming the file, the JSON path of each problem and what was expected there.
 */
export function parseMcpConfig(file: string, text: string): McpServers {
  return parseManifest(file, text, McpConfigFileSchema).mcpServers;
}

/** The text of `file`, or undefined when `project` does not have it (a root's manifests are each optional). */
async function readIfThere(project: ProjectFiles, file: string): Promise<string | undefined> {
  const [dir, ext] = [file.slice(0, file.lastIndexOf('/')), file.slice(file.lastIndexOf('.'))];
  if (!(await project.list(dir, ext)).includes(file)) return undefined;
  return readOrThrow(project, file);
}

async function readOrThrow(project: ProjectFiles, file: string): Promise<string> {
  try {
    return await project.read(file);
  } catch (e) {
    throw new ManifestError(file, `cannot be read (${(e as Error).message})`);
  }
}

function hint(value: string, options: Iterable<string>): string {
  const near = closest(value, options);
  return near.length ? ` (did you mean ${near.map((n) => `"${n}"`).join(' or ')}?)` : '';
}
