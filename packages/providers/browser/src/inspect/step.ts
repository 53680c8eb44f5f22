import type { Limitation } from '@rea/evidence';

/** Collects limitations and bounds each collection step so one unanswered command cannot take the call. */
export class Steps {
  readonly limitations: Limitation[] = [];
  private unanswered = false;

  constructor(
    private readonly signal: AbortSignal,
    private readonly stepMs: number,
  ) {}

  /**
   * Waits until `until` settles or `ms` pass, whichever is first; rejects with the call's abort reason
   * when the call is cancelled meanwhile. Leaves no timer or listener behind, however it ends (a
   * pending load timer would keep the process alive long after the call).
   */
  async settleWithin(until: Promise<unknown>, ms: number): Promise<void> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let onAbort = (): void => undefined;
    const aborted = new Promise<never>((_resolve, reject) => {
      onAbort = () => reject(this.signal.reason);
      if (this.signal.aborted) onAbort();
      else this.signal.addEventListener('abort', onAbort, { once: true });
    });
    try {
      await Promise.race([until, aborted, new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
    } finally {
      clearTimeout(timer);
      this.signal.removeEventListener('abort', onAbort);
    }
  }

  /** Notes an explicit unknown. */
  limit(kind: string, message: string, scope?: string): void {
    this.limitations.push(scope === undefined ? { kind, message } : { kind, message, scope });
  }

  /**
   * Runs `work`; when it fails or does not answer within the step deadline, records a limitation of
   * `kind` and answers null. Cancellation and the call's deadline still propagate.
   */
  async run<T>(kind: string, what: string, work: () => Promise<T>): Promise<T | null> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    // Once the page has left one step unanswered, later steps wait a tenth as long.
    const ms = this.unanswered ? Math.ceil(this.stepMs / 10) : this.stepMs;
    const timeout = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), ms)));
    try {
      const outcome = await Promise.race([work(), timeout]);
      if (outcome === 'timeout') {
        this.unanswered = true;
        this.limit(kind, `${what}: the page did not answer within ${ms} ms (busy or blocked).`);
        return null;
      }
      return outcome;
    } catch (error) {
      if (this.signal.aborted) throw this.signal.reason;
      this.limit(kind, `${what}: ${error instanceof Error ? error.message : String(error)}.`);
      return null;
    } finally {
      clearTimeout(timer);
    }
  }
}
