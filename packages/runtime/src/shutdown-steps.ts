import type { Logger } from '@aos/log';

/** How often a step that is still running is named in the log. */
const STILL_WAITING_EVERY_MS = 10_000;

export interface ShutdownSteps {
  /** A step to run at shutdown; steps run in reverse order of adding: last started, first stopped. */
  add(name: string, step: () => Promise<unknown>): void;
  /** Runs each step once, one at a time; a failed step is logged and the next one still runs. */
  run(): Promise<void>;
}

/**
 * A process's shutdown as named steps. A step that hangs (a connection that never closes,
 * a job that never ends) is named in the log every ten seconds while it holds the rest, so
 * a stop that runs into SHUTDOWN_TIMEOUT_MS, or a test's hook timeout, says what it waited on.
 */
export function shutdownSteps(log: Logger, stillWaitingEveryMs = STILL_WAITING_EVERY_MS): ShutdownSteps {
  const steps: Array<{ name: string; step: () => Promise<unknown> }> = [];
  return {
    add(name, step) {
      steps.push({ name, step });
    },
    async run() {
      for (const { name, step } of steps.splice(0).reverse()) {
        const started = Date.now();
        const report = setInterval(() => log.warn('shutdown is waiting on a step', { step: name, waitedMs: Date.now() - started }), stillWaitingEveryMs);
        report.unref();
        try {
          await step();
        } catch (err) {
          log.error('shutdown step failed', { step: name, error: err });
        } finally {
          clearInterval(report);
        }
      }
    },
  };
}
