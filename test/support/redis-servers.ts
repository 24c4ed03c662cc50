import { readFileSync, readlinkSync, readdirSync } from 'node:fs';

/** Pids of the redis-servers whose working directory is `dir` (a real path: /proc gives the link resolved). */
export function redisServersIn(dir: string): number[] {
  return readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p))
    .filter((p) => {
      try {
        return readFileSync(`/proc/${p}/comm`, 'utf8').startsWith('redis-server') && readlinkSync(`/proc/${p}/cwd`) === dir;
      } catch {
        return false;
      }
    })
    .map(Number);
}
