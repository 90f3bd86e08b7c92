/**
 * The canary: a version that has just come into force is watched for its first `calls` real
 * calls; when more than `share` of that many fail, it trips (the version is rolled back by its
 * owner), saying why. Its counts live in the change store (`ChangesApi.countCall`), per change in
 * force, appended by every process that calls the tool — CLI calls, MCP sessions, the dashboard's
 * server — so they trip it together, and the rollback happens once (`revert` with `onlyIf`). Calls
 * refused before the tool ran (bad arguments, not allowed) never reach it: only the tool's own
 * failures count.
 */
import type { CallCount } from '../../src/contracts/change-contract.ts';
import { errorLine } from '../../src/kernel/errors.ts';

/** Options of the canary. */
export interface CanaryOptions {
  /** How many first calls are watched. Default: 10. */
  calls?: number;
  /** The share of those calls that may fail, 0..1; more trips the canary. Default: 0.5. */
  share?: number;
}

/** What the widget and list_tools_made show of a canary. */
export interface CanaryState {
  watched: number;
  of: number;
  failures: number;
  tripped: boolean;
}

/** The canary of one version, over its counts from every process. */
export class Canary {
  readonly calls: number;
  readonly share: number;

  constructor(options: CanaryOptions) {
    this.calls = options.calls ?? 10;
    this.share = options.share ?? 0.5;
  }

  /** Whether a call should still be counted (the window is not full yet). */
  watching(counts: CallCount): boolean {
    return counts.calls < this.calls;
  }

  /** Why it tripped on `counts`, or undefined while it holds. */
  tripped(counts: CallCount): string | undefined {
    if (counts.failures <= this.share * this.calls) return undefined;
    const last = counts.last ? `; the last error: ${errorLine(counts.last).slice(0, 240)}` : '';
    return `canary: ${counts.failures} of its first ${counts.calls} calls failed (more than ${Math.round(this.share * 100)}% of the ${this.calls} it watches)${last}`;
  }

  /** Where it stands on `counts`. */
  state(counts: CallCount): CanaryState {
    return { watched: counts.calls, of: this.calls, failures: counts.failures, tripped: this.tripped(counts) !== undefined };
  }
}
