/**
 * The contract of the change path (upgrade `Changes`): the one way every agent-made change — a
 * tool, an upgrade, a blueprint, a persona overlay — is proposed, stored as a content-addressed
 * version, gated, decided by the persona's policy, activated, recorded and rolled back. Kinds of
 * change plug in through {@link ChangeKindHandler}; the records and events are the same for all.
 *
 * A shared contract (`src/contracts/`): the CLI (`armature changes`, `approve`, `reject`) and the
 * upgrades that make changes (Changes, MadeTools, MadeUpgrades, Blueprints, PersonaOverlay) all use
 * it, and src/ imports nothing from upgrades/. Its events are declared below by augmentation, as
 * an upgrade declares its own, so the kernel's event map knows nothing of the change path.
 */
import type { ErrorInfo } from '../kernel/errors.ts';
import type { ToolCaller } from '../kernel/events.ts';
import type { Disposable } from '../kernel/lifecycle.ts';

/** Id of the upgrade that runs the change path. */
export const CHANGES_ID = 'Changes';

/** What a change modifies. */
export type ChangeKind = 'tool' | 'upgrade' | 'blueprint' | 'persona';

/** Every kind, in the order the persona policy names them. */
export const CHANGE_KINDS: readonly ChangeKind[] = ['tool', 'upgrade', 'blueprint', 'persona'];

/**
 * Where a change stands. `pending`: it passed its gate and waits for a person; `active`: in force
 * (at most one per target); `rejected`: its gate failed, a person said no, or it could not be
 * activated; `rolled-back`: it was in force and a rollback (asked for, or the canary's) undid it;
 * `superseded`: it was in force and a later change replaced it.
 */
export type ChangeStatus = 'pending' | 'active' | 'rejected' | 'rolled-back' | 'superseded';

/** What a change does to its target. `retire` takes the target out of service (no version). */
export type ChangeAction = 'create' | 'update' | 'rollback' | 'retire';

/** A persona's policy for one kind: `auto` activates a change that passes its gate, `ask` waits for a person, `off` refuses. */
export type SelfModificationPolicy = 'auto' | 'ask' | 'off';

/** Who proposed a change. */
export interface ChangeCaller {
  /** The persona the system was booted with. */
  persona: string;
  /** The agent run that made it, when one was running. */
  run?: string;
  /** The tool caller that asked (`agent`, `python`, `cli`, `ui`, `system` for the canary...). */
  via: ToolCaller;
}

/** One test of a version, as its gate ran it. */
export interface ChangeTest {
  /** The test's name, when the kind names its tests. */
  name?: string;
  /** The arguments it was run with. */
  args: unknown;
  /** Whether the test passed. */
  ok: boolean;
  /** What the code returned (cut when large). */
  value?: unknown;
  /** Why it failed: the code's error, a timeout, or the expectation it missed. */
  error?: ErrorInfo;
  /** How long it ran, in ms. */
  ms: number;
}

/** One change, as recorded in the lineage. Plain, clone-safe data. */
export interface ChangeRecord {
  /** Short unique id, e.g. `c1a2b3c4d`: what `armature approve ID` takes. */
  id: string;
  kind: ChangeKind;
  /** What it changes, e.g. the tool `made.word_count`. */
  target: string;
  action: ChangeAction;
  /** Version number of the target (1, 2, ...: one per distinct content); `null` for a retirement. */
  version: number | null;
  /** sha256 of the stored version; `null` for a retirement. */
  hash: string | null;
  /** Version in force when it was proposed, or `null`. */
  parent: number | null;
  status: ChangeStatus;
  /** Why the proposer made it (the agent's words; untrusted text). */
  reason: string;
  caller: ChangeCaller;
  /** The gate's test report (empty for a retirement and for the canary's rollback). */
  tests: ChangeTest[];
  /** Who let it into force: `ui`, `cli`, `auto` (the persona's policy) or `system` (the canary). */
  approver?: string;
  /** When it was proposed, ms since the epoch. */
  at: number;
  /** When a person or the policy decided it. */
  decidedAt?: number;
  /** When it came into force. */
  activatedAt?: number;
  /** When it went out of force (superseded or rolled back). */
  endedAt?: number;
  /** The latest verdict in words: why it was rejected, rolled back, or what its gate found. */
  outcome?: string;
  /** The change it replaced when it came into force. */
  replaced?: string;
  /**
   * Changes (of any kind) it builds on that had not come into force when it was gated — e.g. an
   * upgrade built on a blueprint that waits for approval. It comes into force only after them.
   */
  requires?: string[];
}

/** A change whose gate is still running: no status yet, no tests. */
export type ProposedChange = Omit<ChangeRecord, 'status' | 'tests'>;

/** Filters of {@link ChangesApi.list}. */
export interface ChangeFilter {
  kind?: ChangeKind;
  target?: string;
  status?: ChangeStatus;
}

/** Options of a change made on someone's behalf. */
export interface ChangeOptions {
  /** Who asks. Only `ui` and `cli` are people: they may approve, reject, and their own changes need no approval. */
  caller: ToolCaller;
  /** The tool call's id, to find the agent run it belongs to. Default: none. */
  callId?: string;
  /** Why. Default: none. */
  reason?: string;
}

/** A proposal of new content; the kind finds its target in the content ({@link ChangeKindHandler.targetOf}). */
export interface ProposeRequest extends ChangeOptions {
  kind: ChangeKind;
  /** `create` or `update`. */
  action: 'create' | 'update';
  /** The kind's content (plain JSON); stored as is, content-addressed. */
  content: unknown;
}

/** What a kind shows of a version on the changes widget. */
export interface ChangePresentation {
  /** The text shown and diffed (e.g. a tool's code). */
  code: string;
  /** Its language, for people (e.g. `python`). */
  language?: string;
  /** Other fields worth showing (e.g. a tool's description and input schema), as plain data. */
  details?: Record<string, unknown>;
}

/** What a kind's gate produces. */
export interface GateReport {
  /** Static problems (each a sentence naming the offending value and a fix). Any -> rejected. */
  problems: string[];
  /** The tests, run in the confinement the change will run in. None, or any failing -> rejected. */
  tests: ChangeTest[];
  /**
   * Ids of pending changes this version builds on (its blueprint, an upgrade a persona overlay
   * names). It waits as pending until they are in force and cannot be approved before them; a
   * rejection of one rejects it too. Default: none.
   */
  requires?: string[];
}

/** Facts about a version handed to a kind. */
export interface VersionInfo {
  /** The change bringing it into force. */
  change: string;
  version: number;
  hash: string;
  /** Who proposed it. */
  caller: ChangeCaller;
}

/**
 * A kind of change: how its content is checked, tested, brought into force, taken out, and
 * loaded at boot. The change path calls these one target at a time (never two calls for one
 * target at once).
 */
export interface ChangeKindHandler<Content = unknown> {
  kind: ChangeKind;
  /**
   * The target `content` names, checked (e.g. a tool name that must not shadow a built-in tool).
   * Throws an error with a `code` and a hint when the content names no usable target: nothing is
   * recorded then.
   */
  targetOf(content: Content): string;
  /** Static checks and the tests. Must not throw for bad content: report it as problems. */
  gate(target: string, content: Content, info: { hash: string; caller: ChangeCaller }): Promise<GateReport>;
  /**
   * Brings `content` into force for `target`, replacing whatever version is in force (hot, without
   * a restart). Throws when it cannot; the version in force then stays.
   */
  activate(target: string, content: Content, info: VersionInfo): Promise<void>;
  /** Takes `target` out of service. */
  deactivate(target: string): Promise<void>;
  /** The gate ran but the version will not come into force now (pending or rejected): free what the gate kept. Default: nothing. */
  release?(target: string, hash: string): Promise<void>;
  /** What the changes widget shows of a version. */
  present(content: Content): ChangePresentation;
  /**
   * Targets of the same kind this content needs in force first (an upgrade's dependencies):
   * `restore` brings targets back in that order. Default: none.
   */
  dependenciesOf?(content: Content): string[];
}

/** A stored active version that could not be brought back at boot. */
export interface LoadFailure {
  change: ChangeRecord;
  error: ErrorInfo;
}

/**
 * Something the store found damaged or refused when it read the journal — a torn or edited line, a
 * decision made over a stale view — skipped (never folded), reported, and recorded so that it is
 * reported once.
 */
export interface StoreRepair {
  /** When it was recorded, ms since the epoch. */
  at: number;
  /** What was found and what was done, in words. */
  what: string;
  /** The process that recorded it. */
  pid?: number;
}

/** A canary's view of one change in force: its first real calls, counted across every process. */
export interface CallCount {
  /** Calls counted so far (at most the window). */
  calls: number;
  /** How many of them failed. */
  failures: number;
  /** The last failure's error. */
  last?: { code: string; message: string };
}

/** The `Changes` upgrade's API. */
export interface ChangesApi {
  /** Adds a kind of change; the disposable removes it. Throws `DUPLICATE_KIND`. */
  registerKind(handler: ChangeKindHandler): Disposable;
  /**
   * Proposes new content: stores the version (sha256, written once), runs the kind's gate, applies
   * the persona's policy (`auto` activates, `ask` leaves it pending, `off` refuses with
   * `SELF_MODIFICATION_OFF` before anything is stored) and records the outcome. Resolves to the
   * record (`active`, `pending` or `rejected`); rejects only for a request that names no usable
   * target or kind.
   */
  propose(request: ProposeRequest): Promise<ChangeRecord>;
  /** Brings back an earlier version of `target`: a change like any other (gated, policy, recorded). */
  rollback(kind: ChangeKind, target: string, version: number, options: ChangeOptions): Promise<ChangeRecord>;
  /** Takes `target` out of service: a change like any other (policy, recorded). */
  retire(kind: ChangeKind, target: string, options: ChangeOptions): Promise<ChangeRecord>;
  /**
   * A person brings a pending change into force. Refuses (`APPROVAL_REFUSED`) any caller but `ui`
   * and `cli`, and (`REQUIREMENT_PENDING`) a change whose requirements wait for approval themselves.
   */
  approve(id: string, options: { caller: ToolCaller }): Promise<ChangeRecord>;
  /** A person refuses a pending change (and the pending changes that require it). Refuses (`APPROVAL_REFUSED`) any caller but `ui` and `cli`. */
  reject(id: string, options: { caller: ToolCaller; reason?: string }): Promise<ChangeRecord>;
  /**
   * The system takes back the change in force for `target` (the canary saw it fail): the version
   * it replaced comes back (or the target goes out of service), without gate or approval, and the
   * record says `why`. With `onlyIf`, only while that change is still the one in force. Resolves
   * to the new record, or `undefined` when there was nothing to take back.
   */
  revert(kind: ChangeKind, target: string, why: string, onlyIf?: string): Promise<ChangeRecord | undefined>;
  /** Records, newest first. */
  list(filter?: ChangeFilter): ChangeRecord[];
  /** One record by id. */
  get(id: string): ChangeRecord | undefined;
  /** The change in force for `target` (a retirement included), if any. */
  active(kind: ChangeKind, target: string): ChangeRecord | undefined;
  /** The stored content of a record's version (checked against its hash), or `undefined`. */
  content(record: ChangeRecord): unknown;
  /** What the widget shows of a change: its version and the version it was proposed over. */
  present(id: string): { change: ChangeRecord; current?: ChangePresentation; previous?: ChangePresentation } | undefined;
  /** The persona's policy for `kind`. Default: `ask`. */
  policy(kind: ChangeKind): SelfModificationPolicy;
  /**
   * At boot: brings each target of `kind` whose change in force has a version back into force with
   * the kind's `activate`, dependencies first (`dependenciesOf`). A version that fails (its stored
   * content is missing or does not match its hash, or `activate` throws) is skipped and reported
   * (`change:load-failed`); the others still load. In safe mode it brings nothing back. Never rejects.
   */
  restore(kind: ChangeKind): Promise<LoadFailure[]>;
  /**
   * Reads what other processes (or tabs) wrote to the store since the last read, updates the
   * records, emits the `change:*` events of those transitions, and brings this process's kinds in
   * line (the version in force elsewhere comes into force here too). The store is watched, so this
   * happens by itself within about a second; tests and the browser call it to be sure.
   */
  refresh(): Promise<void>;
  /**
   * Counts one real call of change `id` (the version in force) for its canary, durably and across
   * processes; calls past `window` are not counted. Resolves to the counts from every process.
   */
  countCall(id: string, outcome: { ok: boolean; error?: { code: string; message: string } }, window: number): Promise<CallCount>;
  /** The canary counts of change `id` from every process so far. */
  callCount(id: string): CallCount;
  /** Everything the store found damaged or refused and recorded, oldest first (see {@link StoreRepair}). */
  repairs(): StoreRepair[];
  /** Whether the system was booted in safe mode: agent-made changes in force were not brought back. */
  readonly safe: boolean;
  /** Versions that failed to load at boot. */
  loadFailures(): LoadFailure[];
}

declare module '../kernel/events.ts' {
  /** The change path's events (see the module header): declared with its contract, not in the kernel. */
  interface ArmatureEvents {
    /** A change was proposed: its version is stored and its gate (checks, tests) is running; it has no status yet. */
    'change:proposed': { change: ProposedChange };
    /** A change was rejected: its gate failed, a person refused it, or it could not be activated (`change.outcome` says which). */
    'change:rejected': { change: ChangeRecord };
    /** A change passed its gate and waits for a person to approve or reject it. */
    'change:pending': { change: ChangeRecord };
    /** A person approved a pending change (`change.approver`: `ui` or `cli`); `change:activated` follows. */
    'change:approved': { change: ChangeRecord };
    /** A change came into force. */
    'change:activated': { change: ChangeRecord };
    /** A change in force was replaced by a later one. */
    'change:superseded': { change: ChangeRecord };
    /** A change in force was undone by a rollback; `reason` says why (asked for, or what the canary saw). */
    'change:rolled-back': { change: ChangeRecord; reason: string };
    /** A stored version in force could not be brought back at boot (or when another process brought it in); it was skipped. */
    'change:load-failed': { change: ChangeRecord; error: ErrorInfo };
    /** The store skipped lines it found damaged or refused, and recorded so (see {@link StoreRepair}). */
    'change:repaired': { repairs: StoreRepair[] };
  }
}

declare module '../kernel/services.ts' {
  interface ArmatureServices {
    Changes: ChangesApi;
  }
}
