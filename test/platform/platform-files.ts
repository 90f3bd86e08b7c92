/**
 * Where each file runs, for the per-platform type checks (`test/typecheck.test.ts`): browser code is
 * checked without Node's types (`tsconfig.browser.json`), Node code without the DOM's
 * (`tsconfig.node.json`). Each check leaves to the other the files that run only on the other
 * platform, and leaves to both the *dual* files: code that runs on both platforms and takes a
 * platform's branch behind a run-time test (`isNode()`, `typeof window`), which a type checker cannot
 * follow. Every other file must type-check under both settings. A dual file becomes an ordinary one by
 * moving its platform branches into an adapter of each platform (STYLE habit 7); shrink DUAL as that
 * happens, never grow it without the reason in a comment.
 */

/** Files that run only in Node (the CLI, the server, Node's adapters, the confined child). */
export const NODE_ONLY: readonly RegExp[] = [
  /^src\/(cli|server|mcp)\//,
  // A process's journal on its data folder (boot() imports it only when the platform has a data folder).
  /^src\/kernel\/journal\//,
  // OpenTelemetry's export (boot() imports it only in Node with an OTLP endpoint set).
  /^src\/kernel\/telemetry\/(otel|span-mask)\.ts$/,
  /^src\/platform\/(node|node-[a-z-]+|directory-store)\.ts$/,
  // Linux's /proc: a process's start time, to tell a pid reused from the one that held a lock.
  /^src\/platform\/proc\//,
  /^src\/sandbox\/(node-[a-z-]+|confined-child|frames)\.ts$/,
  /^upgrades\/pyodide-runtime\/process\//,
  // The confined child's tool pipe: a file descriptor the Node worker reads.
  /^src\/bridge\/tool-pipe\.ts$/,
  // The stdio transport of MCP servers spawns processes.
  /^upgrades\/mcp-client\/transport\.ts$/,
];

/** Files that run only in a browser (Lit views, the page, the browser's adapters). */
export const BROWSER_ONLY: readonly RegExp[] = [
  /^src\/(widgets|dashboard)\//,
  /(^|\/)widget\.ts$/,
  /^upgrades\/[a-z-]+\/(settings-form|transcript-view|change-view|upgrade-widget|console|elicitation-form|past-runs)\.ts$/,
  /^src\/platform\/browser\//,
  /^src\/sandbox\/browser-[a-z-]+\.ts$/,
  /^test\/helpers\/scripted-model-browser\.ts$/,
];

/** Files that run on both and branch on the platform at run time (see above). */
export const DUAL: readonly RegExp[] = [
  // isNode() itself: it reads `process` and `window` to tell.
  /^src\/platform\/detect\.ts$/,
  // The chooser of the default platform imports Node's adapter or the browser's, whichever runs.
  /^src\/platform\/default\/default-platform\.ts$/,
  // MessagePort's `onmessage` (browser) or `on('message')` (worker_threads).
  /^src\/bridge\/loop-spinner\.ts$/,
  // fetch bodies typed with the DOM's BodyInit, used by Python's fetch in both.
  /^src\/sandbox\/network-policy\.ts$/,
  // Keys and settings: environment variables in Node, localStorage in a page.
  /^upgrades\/agent\/(index|keys|settings|providers|model-fetch)\.ts$/,
  // The Python runtime over a Web Worker or a worker thread, and the worker's own two platforms.
  /^upgrades\/pyodide-runtime\/host\/(output-drain|runtime-options|tool-calls|tool-call-scope|worker-handle|worker-session)\.ts$/,
  /^upgrades\/pyodide-runtime\/worker\/(confine|install|main|port|startup)\.ts$/,
];

/** Whether a browser-settings diagnostic in `file` (a path from the repository's root) is the Node check's to judge. */
export const leftToNode = (file: string) => [...NODE_ONLY, ...DUAL].some((p) => p.test(file));

/** Whether a Node-settings diagnostic in `file` is the browser check's to judge. */
export const leftToBrowser = (file: string) => [...BROWSER_ONLY, ...DUAL].some((p) => p.test(file));
