import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';

/** One form of the script as sent: its bytes and the ETag naming them. */
export interface BundleBody {
  /** A plain ArrayBuffer's bytes (a Buffer may share a pooled one), as Hono's body takes. */
  bytes: Uint8Array<ArrayBuffer>;
  etag: string;
}

/** The script that renders the reference page, as the query app serves it. */
export interface ReferenceBundle {
  /** The package's version: part of the script's URL, so an upgrade is never read from a stale cache. */
  version: string;
  plain: BundleBody;
  /** Compressed once (3.5 MB of script is about 1 MB gzipped), for clients that take gzip. */
  gzip: BundleBody;
}

const STANDALONE = '@scalar/api-reference/browser/standalone.js';

let loading: Promise<ReferenceBundle> | undefined;

/**
 * Scalar's standalone browser bundle (one file with its styles, from the npm package
 * @scalar/api-reference), read and compressed on first use and kept: the page then works
 * on a network that reaches nothing but this service.
 */
export function referenceBundle(): Promise<ReferenceBundle> {
  loading ??= load().catch((err: unknown) => {
    // A failed read is tried again by the next request rather than remembered.
    loading = undefined;
    throw err;
  });
  return loading;
}

async function load(): Promise<ReferenceBundle> {
  const file = createRequire(import.meta.url).resolve(STANDALONE);
  // The package's exports name no package.json; it sits two folders above dist/browser/.
  const pkg = JSON.parse(await readFile(path.join(path.dirname(file), '..', '..', 'package.json'), 'utf8')) as { version: string };
  const plain = new Uint8Array(await readFile(file));
  const tag = createHash('sha256').update(plain).digest('base64url').slice(0, 27);
  // zlib's async form runs on the thread pool: the first request does not stall the others.
  const gzipped = new Uint8Array(await promisify(gzip)(plain));
  return { version: pkg.version, plain: { bytes: plain, etag: `"${tag}"` }, gzip: { bytes: gzipped, etag: `"${tag}-gzip"` } };
}
