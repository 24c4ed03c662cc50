import { execFileSync } from 'node:child_process';
import type { Storage } from '@aos/storage';

/** The folder of the spans table's parts in the embedded engine. */
export async function spansFolderOf(storage: Storage): Promise<string> {
  const result = await storage.client.query({ query: "SELECT data_paths FROM system.tables WHERE database = currentDatabase() AND name = 'spans'", format: 'JSONEachRow' });
  return (await result.json<{ data_paths: string[] }>())[0]!.data_paths[0]!;
}

/**
 * The spans table's folder made immutable (`chattr +i`): the engine can no longer create a
 * part in it, as with a full disk, a read-only remount or a permissions slip, while reads
 * of the parts already there keep working. Root can do this; CI runs as root.
 */
export function setImmutable(folder: string, on: boolean): void {
  execFileSync('chattr', [on ? '+i' : '-i', folder]);
}
