/**
 * The Workspace upgrade's contract: its API, the file metadata it answers with, and the hidden
 * system areas other upgrades keep their records in. Other upgrades import these from here, never
 * from the implementation.
 */

/** Metadata of one workspace file. */
export interface FileInfo {
  path: string;
  size: number;
  /** ms since the epoch. */
  mtime: number;
}

/** The Workspace upgrade's API. */
export interface WorkspaceApi {
  /** Files whose path starts with `prefix` (normalized), sorted by path. Default: every file. */
  list(prefix?: string): FileInfo[];
  /** Metadata of `path`, or `undefined` when absent. */
  stat(path: string): FileInfo | undefined;
  /** Contents of `path`; throws `FILE_NOT_FOUND`. */
  read(path: string): Uint8Array;
  /** Contents of `path` as UTF-8; throws `FILE_NOT_FOUND` or `NOT_TEXT`. */
  readText(path: string): string;
  /** Creates or replaces `path`; resolves once durable. */
  write(path: string, data: Uint8Array | string): Promise<FileInfo & { created: boolean }>;
  /** Deletes `path`; resolves to whether it existed, once durable. */
  delete(path: string): Promise<boolean>;
  /** Total bytes stored (the hidden system folder included). */
  totalBytes(): number;
  /**
   * The folder its files are kept in as files (Node), e.g. for MCP servers' roots; undefined in the
   * browser. Files there change through this API: what others write there is seen after
   * {@link reload} (or a restart).
   */
  readonly folder?: string;
  /**
   * Reads again what the store holds, for what other processes on the same data folder wrote
   * (files and system areas: their agent runs). Cheap where the store lists metadata (Node):
   * only files whose size or mtime changed are read. Resolves to what changed.
   */
  reload(): Promise<WorkspaceReload>;
  /**
   * The hidden system area `name` (kebab-case), for the system's own records: agent transcripts,
   * change records, versions. Its files live in the same durable store but are never listed, read
   * or written through the methods above, the file tools or Python's workspace sync.
   */
  area(name: string): SystemArea;
}

/** What {@link WorkspaceApi.reload} found changed (also the payload of `workspace:reloaded`). */
export interface WorkspaceReload {
  /** Files written or deleted elsewhere since memory last matched the store. */
  files: number;
  /** The system areas among them, by name (e.g. `runs`: another process's agent runs). */
  areas: string[];
}

/** One file of a system area. Paths are relative to the area. */
export interface AreaFileInfo {
  path: string;
  size: number;
  /** ms since the epoch. */
  mtime: number;
}

/**
 * A named folder of the workspace's hidden system folder, for the system's own durable records.
 * Writes are as durable as workspace writes (atomic per file, resolved once on disk) and emit no
 * `workspace:*` events: the area's owner announces its own changes.
 */
export interface SystemArea {
  /** The area's name, e.g. `runs`. */
  readonly name: string;
  /** Files whose area-relative path starts with the folder `prefix`, sorted by path. Default: all. */
  list(prefix?: string): AreaFileInfo[];
  /** Contents of `path`, or `undefined` when absent. */
  read(path: string): Uint8Array | undefined;
  /** Contents of `path` as UTF-8 text, or `undefined` when absent. */
  readText(path: string): string | undefined;
  /** Creates or replaces `path`; resolves once durable. */
  write(path: string, data: Uint8Array | string): Promise<AreaFileInfo>;
  /**
   * Appends `text` to `path` (created when absent); resolves once durable. Appends to one area run
   * in call order, so concurrent appends never lose a line.
   */
  append(path: string, text: string): Promise<AreaFileInfo>;
  /** Deletes `path`; resolves to whether it existed, once durable. */
  delete(path: string): Promise<boolean>;
}

/** What `read_file` answers. */
export interface ReadFileValue extends FileInfo {
  encoding: 'utf8' | 'base64';
  /** The text, or base64 when `encoding` is `base64`. */
  content: string;
}

/** What `list_files` answers. */
export interface ListFilesValue {
  files: FileInfo[];
  count: number;
  totalBytes: number;
}

declare module '../../src/kernel/services.ts' {
  interface ArmatureServices {
    Workspace: WorkspaceApi;
  }
}

declare module '../../src/kernel/tool-contract.ts' {
  interface ArmatureToolMap {
    read_file: { args: { path: string; encoding?: 'utf8' | 'base64' }; value: ReadFileValue };
    write_file: { args: { path: string; content: string; encoding?: 'utf8' | 'base64' }; value: FileInfo & { created: boolean } };
    list_files: { args: { prefix?: string }; value: ListFilesValue };
    delete_file: { args: { path: string }; value: { path: string; deleted: true } };
  }
}
