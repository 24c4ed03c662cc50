import { ConfigError } from '@aos/config';
import { startAllInOne } from './all-in-one.ts';

// The single-machine entry: `npm start`.
try {
  const service = await startAllInOne(process.env);
  if (service.createdKey) {
    process.stdout.write(
      `\nCreated a development API key for project "default" (saved in DATA_DIR/dev-api-key.txt):\n\n  ${service.createdKey.secret}\n\n`,
    );
  }
  process.stdout.write(`agent observability service listening on ${service.url}\n`);
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(`${signal}: shutting down\n`);
    service.stop().then(() => process.exit(0));
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
} catch (err) {
  process.stderr.write(`${err instanceof ConfigError ? err.message : (err as Error).stack ?? String(err)}\n`);
  process.exit(1);
}
