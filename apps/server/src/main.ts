import { processSettings } from '@aos/config';
import { onShutdownSignal, runMain } from '@aos/runtime';
import { startAllInOne } from './all-in-one.ts';

// The single-machine entry: `npm start`.
runMain(async () => {
  // Parsed first: a bad setting fails before anything starts.
  const shutdown = processSettings(process.env);
  const service = await startAllInOne(process.env);
  if (service.createdKey) {
    process.stdout.write(
      `\nCreated a development API key for project "default" (saved in DATA_DIR/dev-api-key.txt):\n\n  ${service.createdKey.secret}\n\n`,
    );
  }
  process.stdout.write(`agent observability service listening on ${service.url}\n`);
  if (service.grpcAddress) process.stdout.write(`OTLP/gRPC receiver on ${service.grpcAddress}\n`);
  onShutdownSignal(() => service.stop(), shutdown);
});
