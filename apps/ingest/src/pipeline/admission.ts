import type { OtlpEncoding } from '@aos/otlp';
import { ApiError, checkApiKey, type KeyAuthenticator } from '@aos/http';
import type { Logger } from '@aos/log';
import type { Backpressure } from '../backpressure.ts';
import type { IngestProjectSettings, ProjectSettingsSource } from '../project-settings.ts';
import type { BodyLease } from './inflight-bytes.ts';
import { IngestRefusal } from './refusal.ts';
import type { StageTimes } from './stage-times.ts';
import { QUEUE_TIMEOUT_MS, withTimeout } from './timeout.ts';

/** One export request as a transport hands it to the pipeline. */
export interface ExportCall {
  /** The `x-api-key` the exporter sent: an HTTP header, or gRPC metadata. */
  apiKey: string | undefined;
  /** The message's encoding, or the transport's refusal of its format (told to known callers only). */
  encoding: OtlpEncoding | IngestRefusal;
  /**
   * Reads the whole message, inflated, within the size limit, or throws an IngestRefusal.
   * Called only once the export is admitted, so a refused exporter's body is never read.
   * Every byte held (as declared, as read, as inflated) is taken from `lease` first, which
   * refuses the export when ingest already holds its in-flight budget.
   */
  readMessage(lease: BodyLease): Promise<Uint8Array>;
  /** Marked as the export passes each stage, when the transport reports them (HTTP's Server-Timing). */
  stages?: StageTimes;
}

export interface AdmissionDeps {
  auth: KeyAuthenticator;
  backpressure: Backpressure;
  projectSettings: ProjectSettingsSource;
  logger: Logger;
}

/** An export that may be read and queued: whose it is, and what must be applied before Redis sees it. */
export interface Admission {
  projectId: string;
  encoding: OtlpEncoding;
  projectSettings: IngestProjectSettings;
}

/**
 * The checks before a message is read, in the order exporters are answered: the key, the
 * format, the queue's high-water mark, the project's masking policy. Throws IngestRefusal.
 */
export async function admit(deps: AdmissionDeps, call: ExportCall): Promise<Admission> {
  let projectId: string;
  try {
    projectId = (await checkApiKey(deps.auth, call.apiKey, 'ingest')).projectId;
  } catch (err) {
    if (err instanceof ApiError) throw new IngestRefusal(err.status === 401 ? 'unauthenticated' : 'permission_denied', err.message);
    // The key store could not be asked: transient, so the exporter should retry.
    deps.logger.error('cannot check the API key', { error: err });
    throw new IngestRefusal('unavailable', 'cannot check the API key right now; retry later');
  }
  if (call.encoding instanceof IngestRefusal) throw call.encoding;

  let overloaded: string | undefined;
  try {
    overloaded = await withTimeout(deps.backpressure.overloaded(), QUEUE_TIMEOUT_MS);
  } catch (err) {
    deps.logger.error('cannot measure the queue depth', { error: err });
    throw new IngestRefusal('unavailable', 'the ingest queue is unavailable; retry later');
  }
  if (overloaded !== undefined) throw new IngestRefusal('overloaded', overloaded);

  // Without the project's masking policy nothing may be queued: raw values would reach Redis.
  try {
    const projectSettings = await withTimeout(deps.projectSettings.get(projectId), QUEUE_TIMEOUT_MS);
    return { projectId, encoding: call.encoding, projectSettings };
  } catch (err) {
    deps.logger.error('cannot load the project settings', { projectId, error: err });
    throw new IngestRefusal('unavailable', "cannot load the project's masking policy right now; retry later");
  }
}
