import { parseArgs } from 'node:util';
import { ConfigError, storageSettings } from '@aos/config';
import { API_KEY_SCOPES, createApiKey, listApiKeys, migrate, openStorage, revokeApiKey, type ApiKeyScope } from '@aos/storage';

const USAGE = `usage:
  npm run keys -- create --project <id> [--name <name>] [--scopes ingest,read,write,admin]
  npm run keys -- revoke <key id>
  npm run keys -- list [--project <id>]

Works on the storage the service uses (DATA_DIR, or CLICKHOUSE_URL). The embedded engine
allows one process per data directory: with the all-in-one service running, manage keys
through its API instead (POST/GET/DELETE /api/v1/api-keys with an admin key).`;

async function main(argv: string[]): Promise<number> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      project: { type: 'string' },
      name: { type: 'string' },
      scopes: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const [command, arg] = positionals;
  if (values.help || !command) {
    process.stdout.write(`${USAGE}\n`);
    return command ? 0 : 2;
  }
  const storage = await openStorage(storageSettings(process.env));
  try {
    await migrate(storage);
    switch (command) {
      case 'create': {
        if (!values.project) throw new UsageError('create needs --project');
        const scopes = parseScopes(values.scopes ?? 'ingest,read,write');
        const key = await createApiKey(storage, { projectId: values.project, name: values.name ?? 'cli', scopes });
        process.stdout.write(`${JSON.stringify(key, null, 2)}\n\nThe secret is shown only now: ${key.secret}\n`);
        return 0;
      }
      case 'revoke': {
        if (!arg) throw new UsageError('revoke needs a key id');
        const key = await revokeApiKey(storage, arg);
        if (!key) {
          process.stderr.write(`no API key with id ${arg}\n`);
          return 1;
        }
        process.stdout.write(`revoked ${key.id} (project ${key.projectId}) at ${key.revokedAt}\n`);
        return 0;
      }
      case 'list': {
        for (const key of await listApiKeys(storage, values.project)) process.stdout.write(`${JSON.stringify(key)}\n`);
        return 0;
      }
      default:
        throw new UsageError(`unknown command ${command}`);
    }
  } finally {
    await storage.close();
  }
}

class UsageError extends Error {}

function parseScopes(text: string): ApiKeyScope[] {
  const scopes = text.split(',').map((s) => s.trim()).filter(Boolean);
  for (const s of scopes) {
    if (!(API_KEY_SCOPES as readonly string[]).includes(s)) {
      throw new UsageError(`unknown scope ${s}: use ${API_KEY_SCOPES.join(', ')}`);
    }
  }
  return scopes as ApiKeyScope[];
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    if (err instanceof UsageError) process.stderr.write(`${err.message}\n\n${USAGE}\n`);
    else if (err instanceof ConfigError) process.stderr.write(`${err.message}\n`);
    else process.stderr.write(`${(err as Error).message}\n`);
    process.exit(err instanceof UsageError ? 2 : 1);
  },
);
