import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

/** The script that renders the reference page, as the query app serves it. */
export interface ReferenceBundle {
  body: Uint8Array<ArrayBuffer>;
  /** The package's version: part of the script's URL, so an upgrade is never read from a stale cache. */
  version: string;
  etag: string;
}

const STANDALONE = '@scalar/api-reference/browser/standalone.js';

let loaded: ReferenceBundle | undefined;

/**
 * Scalar's standalone browser bundle (one file with its styles, from the npm package
 * @scalar/api-reference), read on first use and kept: the page then works on a network
 * that reaches nothing but this service.
 */
export function referenceBundle(): ReferenceBundle {
  if (loaded) return loaded;
  const file = createRequire(import.meta.url).resolve(STANDALONE);
  // The package's exports name no package.json; it sits two folders above dist/browser/.
  const pkg = JSON.parse(readFileSync(path.join(path.dirname(file), '..', '..', 'package.json'), 'utf8')) as { version: string };
  // A copy in a plain ArrayBuffer (a Buffer may share a pooled one), as Hono's body takes.
  const body = new Uint8Array(readFileSync(file));
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
  loaded = { body, version: pkg.version, etag };
  return loaded;
}
