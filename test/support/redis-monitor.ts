import { connect } from 'node:net';
import { once } from 'node:events';
import { inject } from 'vitest';

export interface RedisMonitor {
  /** Every command Redis received while watching, one MONITOR line each (arguments quoted as Redis prints them). */
  commands: string[];
  /** Stops watching and closes the connection. */
  stop(): void;
}

/** Watches every command the tests' Redis receives (MONITOR), e.g. to see what ingest queued. */
export async function watchRedisCommands(): Promise<RedisMonitor> {
  // A bare socket rather than ioredis' monitor mode: ioredis switches into that mode one
  // tick after MONITOR's OK and matches every reply against its command queue, so on a busy
  // shared Redis the lines that arrive around the switch or the close surfaced as errors
  // ("Command queue state error") and failed whichever test was running. MONITOR's output
  // is one status line per command, simple to read as text.
  const { hostname, port } = new URL(inject('redisUrl'));
  const socket = connect({ host: hostname, port: Number(port) });
  socket.setEncoding('utf8');
  await once(socket, 'connect');
  socket.on('error', () => {}); // a test's watcher outliving Redis is not the test's failure
  const commands: string[] = [];
  let buffered = '';
  let confirmed: () => void = () => {};
  const started = new Promise<void>((resolve) => (confirmed = resolve));
  socket.on('data', (text: string) => {
    buffered += text;
    const lines = buffered.split('\r\n');
    buffered = lines.pop()!;
    for (const line of lines) {
      if (line === '+OK') confirmed();
      else if (line.startsWith('+')) commands.push(line.slice(1));
    }
  });
  socket.write('MONITOR\r\n');
  await started;
  return { commands, stop: () => socket.destroy() };
}
