// Starts a private redis-server in the directory given as argument, prints its pid and
// then waits: the test SIGKILLs this process, as a crash would, leaving the server behind.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { startLocalRedis } from '@aos/local-services';

const dir = process.argv[2]!;
const redis = await startLocalRedis({ dir });
process.stdout.write(`${readFileSync(path.join(dir, 'redis-server.pid'), 'utf8').trim()} ${redis.port}\n`);
setInterval(() => {}, 60_000);
