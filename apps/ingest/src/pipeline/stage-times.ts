/**
 * Where one export's time went, stage by stage (admission, reading the body, waiting for a
 * decode thread, decoding, queueing), answered as a Server-Timing header: a slow answer
 * seen by a client or the fuzz bench says which stage held it, without a profiler.
 */
export class StageTimes {
  private readonly started = performance.now();
  private last = this.started;
  private readonly stages: Array<[name: string, ms: number]> = [];

  /** Ends the stage that ran since the previous mark (or the start) under `name`. */
  mark(name: string): void {
    const now = performance.now();
    this.stages.push([name, now - this.last]);
    this.last = now;
  }

  /** E.g. `admit;dur=1.2, read;dur=40.5, total;dur=43.0`: the stages marked so far and the time since the start. */
  header(): string {
    const total: [string, number] = ['total', performance.now() - this.started];
    return [...this.stages, total].map(([name, ms]) => `${name};dur=${ms.toFixed(1)}`).join(', ');
  }
}
