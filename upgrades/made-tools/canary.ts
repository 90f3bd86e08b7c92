/**
 * The canary: a version that has just come into force is watched for its first `calls` real
 * calls; when more than `share` of that many fail, it trips once (the version is rolled back by
 * its owner), saying why. Calls refused before the tool ran (bad arguments, not allowed) never
 * reach it: only the tool's own failures count.
 */
import { errorLine } from '../../src/kernel/errors.ts';

/** Options of a {@link Canary}. */
export interface CanaryOptions {
  /** How many first calls are watched. Default: 10. */
  calls?: number;
  /** The share of those calls that may fail, 0..1; more trips the canary. Default: 0.5. */
  share?: number;
}

/** Watches the first calls of one version. */
export class Canary {
  readonly calls: number;
  readonly share: number;
  private seen = 0;
  private failures = 0;
  private tripped = false;

  constructor(options: CanaryOptions, private readonly onTrip: (why: string) => void) {
    this.calls = options.calls ?? 10;
    this.share = options.share ?? 0.5;
  }

  /** Counts one real call; trips as soon as the failures exceed the share of the watched calls. */
  record(ok: boolean, error?: { code: string; message: string }): void {
    if (this.tripped || this.seen >= this.calls) return;
    this.seen++;
    if (!ok) this.failures++;
    if (this.failures > this.share * this.calls) {
      this.tripped = true;
      const last = error ? `; the last error: ${errorLine(error).slice(0, 240)}` : '';
      this.onTrip(`canary: ${this.failures} of its first ${this.seen} calls failed (more than ${Math.round(this.share * 100)}% of the ${this.calls} it watches)${last}`);
    }
  }

  /** Where it stands, for the widget and list_tools_made. */
  get state(): { watched: number; of: number; failures: number; tripped: boolean } {
    return { watched: this.seen, of: this.calls, failures: this.failures, tripped: this.tripped };
  }
}
