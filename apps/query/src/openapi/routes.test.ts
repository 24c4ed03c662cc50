import { describe, expect, it } from 'vitest';
import { acceptsGzip } from './routes.ts';

describe('acceptsGzip', () => {
  it('takes gzip when named or covered by *, with any weight above 0', () => {
    expect(acceptsGzip('gzip, deflate, br, zstd')).toBe(true);
    expect(acceptsGzip('br;q=1.0, GZIP;q=0.5')).toBe(true);
    expect(acceptsGzip('*')).toBe(true);
  });

  it('does not when it is missing, refused with q=0, or the header is absent', () => {
    expect(acceptsGzip('br, deflate')).toBe(false);
    expect(acceptsGzip('gzip;q=0, br')).toBe(false);
    expect(acceptsGzip('x-gzip-like')).toBe(false);
    expect(acceptsGzip(undefined)).toBe(false);
  });
});
