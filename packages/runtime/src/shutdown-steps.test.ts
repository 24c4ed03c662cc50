import { describe, expect, it } from 'vitest';
import type { Logger } from '@aos/log';
import { shutdownSteps } from './shutdown-steps.ts';

function recordingLogger(lines: Array<{ level: string; msg: string; fields?: Record<string, unknown> }>): Logger {
  const logger: Logger = {
    debug: (msg, fields) => lines.push({ level: 'debug', msg, fields }),
    info: (msg, fields) => lines.push({ level: 'info', msg, fields }),
    warn: (msg, fields) => lines.push({ level: 'warn', msg, fields }),
    error: (msg, fields) => lines.push({ level: 'error', msg, fields }),
    child: () => logger,
  };
  return logger;
}

describe('shutdownSteps', () => {
  it('runs the steps last-added first, each once, and goes on past a failed one', async () => {
    const lines: Array<{ level: string; msg: string; fields?: Record<string, unknown> }> = [];
    const ran: string[] = [];
    const steps = shutdownSteps(recordingLogger(lines));
    steps.add('storage', async () => ran.push('storage'));
    steps.add('queue', async () => {
      ran.push('queue');
      throw new Error('connection is closed');
    });
    steps.add('http', async () => ran.push('http'));
    await steps.run();
    await steps.run();
    expect(ran).toEqual(['http', 'queue', 'storage']);
    expect(lines).toEqual([{ level: 'error', msg: 'shutdown step failed', fields: { step: 'queue', error: new Error('connection is closed') } }]);
  });

  it('names a step that holds the shutdown while it runs, and stops naming it once it ends', async () => {
    const lines: Array<{ level: string; msg: string; fields?: Record<string, unknown> }> = [];
    const steps = shutdownSteps(recordingLogger(lines), 20);
    steps.add('writer', () => new Promise((resolve) => setTimeout(resolve, 110)));
    await steps.run();
    const waits = lines.filter((l) => l.msg === 'shutdown is waiting on a step');
    expect(waits.length).toBeGreaterThanOrEqual(2);
    // Date.now() counts whole milliseconds, so a 20 ms interval may read 19 (a Node 24 CI run did).
    expect(waits.every((l) => l.fields?.step === 'writer' && (l.fields.waitedMs as number) >= 19)).toBe(true);
    const after = lines.length;
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(lines.length).toBe(after);
  });
});
