// Opens the embedded engine in the directory given as argument, starts an insert that runs
// for seconds, closes the storage while it runs and exits at once, as the service's stop
// does. Prints whether the insert had ended when the close returned.
import { openStorage } from '@aos/storage';
import { storageSettingsForTest } from './storage.ts';

const storage = await openStorage(storageSettingsForTest(process.argv[2]!));
await storage.client.command({ query: 'CREATE TABLE held (n UInt64, s String) ENGINE = MergeTree ORDER BY n' });
let ended = false;
void storage.client
  .command({ query: 'INSERT INTO held SELECT number, repeat(toString(number), 10) FROM numbers(20000000)' })
  .catch(() => {})
  .finally(() => (ended = true));
await new Promise((resolve) => setTimeout(resolve, 300));
await storage.close();
process.stdout.write(`insert ended before the close returned: ${ended}\n`);
process.exit(0);
