import { describe, expect, it } from 'vitest';
import { signWebhook, verifyWebhook } from './webhook-signature.ts';

describe('webhook signatures', () => {
  // The expected value comes from `printf '%s' '1700000000.{"a":1}' | openssl dgst -sha256 -hmac 'whsec_0123456789abcdef'`.
  it('is the hex HMAC-SHA256 of "<timestamp>.<body>"', () => {
    expect(signWebhook('whsec_0123456789abcdef', 1_700_000_000, '{"a":1}')).toBe(
      'v1=9f5e37cdc7ea587c7c02062d93283cad000d66a831b2a1676418696db47ed6c2',
    );
  });

  it('verifies only the same secret, timestamp and body', () => {
    const sig = signWebhook('s3cret-s3cret-s3cret', 100, 'body');
    expect(verifyWebhook('s3cret-s3cret-s3cret', 100, 'body', sig)).toBe(true);
    expect(verifyWebhook('s3cret-s3cret-s3cret', 101, 'body', sig)).toBe(false);
    expect(verifyWebhook('s3cret-s3cret-s3cret', 100, 'body ', sig)).toBe(false);
    expect(verifyWebhook('other', 100, 'body', sig)).toBe(false);
    expect(verifyWebhook('s3cret-s3cret-s3cret', 100, 'body', 'v1=short')).toBe(false);
  });
});
