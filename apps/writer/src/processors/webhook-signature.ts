import { createHmac, timingSafeEqual } from 'node:crypto';

/** Headers of a monitor webhook delivery. */
export const WEBHOOK_HEADERS = {
  id: 'x-aos-webhook-id',
  timestamp: 'x-aos-webhook-timestamp',
  signature: 'x-aos-webhook-signature',
} as const;

/**
 * The signature of a delivery: `v1=` + hex HMAC-SHA256, keyed by the monitor's secret,
 * of `<timestamp>.<body>` (timestamp in Unix seconds, as sent in its header). Signing
 * the timestamp with the body lets a receiver refuse old deliveries replayed later.
 */
export function signWebhook(secret: string, timestampSeconds: number, body: string): string {
  return `v1=${createHmac('sha256', secret).update(`${timestampSeconds}.${body}`).digest('hex')}`;
}

/** What a receiver does: recompute and compare in constant time. */
export function verifyWebhook(secret: string, timestampSeconds: number, body: string, signature: string): boolean {
  const expected = Buffer.from(signWebhook(secret, timestampSeconds, body));
  const given = Buffer.from(signature);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
