/**
 * When a resident server stops itself: after `idleMs` with no request in flight and none begun,
 * or, for one a command started, as soon as its store no longer names it (the run file is gone
 * or names another server: the store was removed, or a `weave serve` took it over), so no
 * server outlives what it serves. Checked every few seconds on a timer that keeps no process up;
 * `stopNow` stops it at once (Weave's own files changed: server/build.ts).
 */
export class IdleWatch {
  private inFlight = 0;
  private last = Date.now();
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly idleMs: number,
    private readonly onIdle: (reason: string) => void,
    /** Whether the store still names this server; undefined: not asked. */
    private readonly stillNamed?: () => Promise<boolean>,
  ) {}

  /** From now on (once the server is listening, and named by its run file) the watch runs. */
  start(): void {
    if (this.stopped || this.timer) return;
    this.last = Date.now();
    this.timer = setInterval(() => void this.check(), Math.max(200, Math.min(this.idleMs / 4, 5000)));
    this.timer.unref();
  }

  /** A request began; the function returned ends it (once, however often it is called). */
  begin(): () => void {
    this.inFlight++;
    this.last = Date.now();
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.inFlight--;
      this.last = Date.now();
    };
  }

  close(): void {
    this.stopped = true;
    clearInterval(this.timer);
  }

  private async check(): Promise<void> {
    if (this.stopped) return;
    if (this.stillNamed && !(await this.stillNamed().catch(() => true))) return this.stop('the store no longer names this server');
    if (!this.inFlight && Date.now() - this.last >= this.idleMs) this.stop(`no request for ${Math.round(this.idleMs / 1000)} s`);
  }

  /** Stops the server now, for `reason`, as the watch would (once). */
  stopNow(reason: string): void {
    this.stop(reason);
  }

  private stop(reason: string): void {
    if (this.stopped) return;
    this.close();
    this.onIdle(reason);
  }
}
