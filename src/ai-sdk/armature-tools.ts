/**
 * Armature's tools for an agent built on the Vercel AI SDK: `execute_python` (with `call_tool`
 * and `from tools.<namespace> import ...` to every tool the persona allows) and the tools the model
 * needs beside it, as an AI SDK `ToolSet`, with the system-prompt fragment that teaches the model
 * to use them. Every call goes through the ToolRunner (validation, allow-list, timeouts, events);
 * results are `{ ok: true, value }` or `{ ok: false, error, hint }`, never thrown.
 */
import type { Tool, ToolSet } from 'ai';
import { boot, type ArmatureSystem, type BootOptions } from '../kernel/boot/boot.ts';
import type { ToolCaller } from '../kernel/events.ts';
import { peerMissing } from '../kernel/optional-peer.ts';
import { aliasNames, NAME_RULES } from '../tools-format/tool-names.ts';
import { DEFAULT_MAX_RESULT_CHARS, directModePrompt, offeredTools, toModelResult } from '../contracts/offered-tools.ts';
import { streamPythonRun, type PythonProgress } from './python-stream.ts';

/** Options of {@link createArmatureTools}. */
export interface ArmatureToolsOptions extends BootOptions {
  /**
   * A system already booted to take the tools from; `dispose()` then leaves it running. Default:
   * one booted with the other options, which `dispose()` shuts down.
   */
  system?: ArmatureSystem;
  /**
   * Persona to boot (when no `system` is given). Default: `python` (ToolRunner, Workspace,
   * PyodideRuntime and PythonTool: the kernel and Python with `call_tool`, nothing else).
   */
  persona?: string;
  /**
   * `code`: the model gets `execute_python`, the skill tools and the tools Python cannot call, and
   * calls every other tool from Python; `direct`: every allowed tool is a tool of its own.
   * Default: `code`.
   */
  toolMode?: 'code' | 'direct';
  /**
   * The session the calls belong to: `execute_python` runs in a Python runtime of the session's
   * own, with its own globals. Default: none (the shared runtime and globals).
   */
  session?: string;
  /** Longest result given back to the model, in characters of JSON (longer ones are cut, saying so). Default: 20000. */
  maxResultChars?: number;
  /** Who the calls are from, in events and statistics. Default: `agent`. */
  caller?: ToolCaller;
}

/** What a tool gives the model: `{ ok: true, value }` or `{ ok: false, error, hint? }` (JSON). */
export type ArmatureToolOutput = Record<string, unknown>;

/** What {@link createArmatureTools} resolves to. */
export interface ArmatureTools {
  /**
   * The tools, for `generateText`, `streamText` or `ToolLoopAgent`. Keys are the tools' names, or
   * an alias where a name breaks the providers' rules (`memory.read_graph` -> `memory__read_graph`).
   * `execute_python` streams its output as preliminary results (`{ status: 'running', stdout,
   * stderr }`) while it runs; its final result is the last one. Every `execute` honours the
   * SDK's `abortSignal`: an aborted `execute_python` interrupts the Python code.
   */
  tools: ToolSet;
  /**
   * The system-prompt fragment that teaches the model its tools: in code mode how to call every
   * tool from Python with `call_tool` or `from tools.<namespace> import ...`, and the index of
   * namespaces (PythonTool's own fragment); in direct mode the list of tools.
   */
  instructions: string;
  /** The system the tools run in: its bus, its workspace, its ToolRunner. */
  system: ArmatureSystem;
  /** The alias each tool was given, by alias (names that needed none are absent). */
  aliases: Readonly<Record<string, string>>;
  /** Stops what this call started: the system, if it booted it. Safe to call twice. */
  dispose(): Promise<void>;
  /** The same as `dispose()`, so `await using armature = await createArmatureTools()` disposes it at the end of the block. */
  [Symbol.asyncDispose](): Promise<void>;
}

let instances = 0;

/**
 * Boots a persona (or takes `options.system`) and returns its tools as an AI SDK `ToolSet` with
 * the system-prompt fragment that goes with them:
 *
 * ```ts
 * const armature = await createArmatureTools();
 * const { text } = await generateText({ model, tools: armature.tools, system: armature.instructions, prompt, stopWhen: stepCountIs(5) });
 * await armature.dispose();
 * ```
 *
 * Needs the `ai` package (an optional peer): without it, rejects with `PEER_MISSING` naming it.
 * Rejects with `CODE_MODE_NEEDS_PYTHON` in code mode when the persona does not allow `execute_python`.
 */
export async function createArmatureTools(options: ArmatureToolsOptions = {}): Promise<ArmatureTools> {
  const ai = await import('ai').catch(peerMissing('ai', 'armature/ai-sdk'));
  const { system: given, toolMode = 'code', session, maxResultChars = DEFAULT_MAX_RESULT_CHARS, caller = 'agent', ...bootOptions } = options;
  const system = given ?? (await boot({ ...bootOptions, persona: bootOptions.persona ?? 'python' }));
  try {
    const allowed = system.tools.getToolDeclarations();
    const offered = offeredTools(toolMode, allowed, system.persona);
    // Resolved by its contract's shape: src/ never imports an upgrade.
    const python = toolMode === 'code' ? await system.resolve<{ getSystemPrompt(): string }>('PythonTool') : undefined;
    const instructions = python ? python.getSystemPrompt() : directModePrompt(system.persona, offered);
    const { names, aliases } = aliasNames(
      offered.map((t) => t.name),
      NAME_RULES.openai,
    );
    const prefix = `ai-sdk-${++instances}`;
    let calls = 0;
    const tools: ToolSet = {};
    offered.forEach((t, i) => {
      const name = t.name;
      const callOptions = (abortSignal: AbortSignal | undefined, toolCallId: string) => ({
        caller,
        signal: abortSignal,
        callId: `${prefix}/${++calls}/${toolCallId}`,
        ...(session === undefined ? {} : { session }),
      });
      const base = { description: t.description, inputSchema: ai.jsonSchema<Record<string, unknown>>(t.inputSchema as Parameters<typeof ai.jsonSchema>[0]) };
      tools[names[i]!] =
        name === 'execute_python'
          ? ai.tool<Record<string, unknown>, PythonProgress | ArmatureToolOutput>({
              ...base,
              execute: (input, { abortSignal, toolCallId }) => streamPythonRun(system, input, callOptions(abortSignal, toolCallId), maxResultChars),
            })
          : (ai.tool<Record<string, unknown>, ArmatureToolOutput>({
              ...base,
              execute: async (input, { abortSignal, toolCallId }) => toModelResult(name, await system.tools.executeTool(name, input, callOptions(abortSignal, toolCallId)), maxResultChars),
            }) as Tool);
    });
    let disposed: Promise<void> | undefined;
    const dispose = () => (disposed ??= given ? Promise.resolve() : system.dispose());
    return { tools, instructions, system, aliases, dispose, [Symbol.asyncDispose]: dispose };
  } catch (e) {
    if (!given) await system.dispose();
    throw e;
  }
}
