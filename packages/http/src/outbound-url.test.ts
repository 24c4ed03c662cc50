import { describe, expect, it } from 'vitest';
import { isPrivateAddress, outboundUrlProblem } from './outbound-url.ts';

describe('isPrivateAddress', () => {
  it('knows loopback, private, link-local, CGNAT and reserved ranges, in both families', () => {
    for (const a of ['127.0.0.1', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::1', '::', 'fd00::1', 'fe80::1', '::ffff:127.0.0.1']) {
      expect(isPrivateAddress(a), a).toBe(true);
    }
    for (const a of ['8.8.8.8', '172.32.0.1', '1.1.1.1', '2606:4700:4700::1111', '::ffff:8.8.8.8']) {
      expect(isPrivateAddress(a), a).toBe(false);
    }
  });
});

describe('outboundUrlProblem', () => {
  it('refuses private hosts, names the address, and allows them when told to', async () => {
    expect(await outboundUrlProblem('http://127.0.0.1:8123/?query=SELECT%201', false)).toMatch(/private address \(127\.0\.0\.1\)/);
    expect(await outboundUrlProblem('http://[::1]:9000/hook', false)).toMatch(/private address/);
    expect(await outboundUrlProblem('http://localhost:9000/hook', false)).toMatch(/private address/);
    expect(await outboundUrlProblem('http://169.254.169.254/latest/meta-data', false)).toMatch(/private address/);
    expect(await outboundUrlProblem('http://127.0.0.1:9000/hook', true)).toBeNull();
    expect(await outboundUrlProblem('http://93.184.215.14/hook', false)).toBeNull();
  });

  it('refuses what is not an http(s) URL, or carries credentials', async () => {
    expect(await outboundUrlProblem('ftp://example.com/x', true)).toMatch(/http/);
    expect(await outboundUrlProblem('not a url', true)).toMatch(/not a URL/);
    expect(await outboundUrlProblem('https://user:pw@example.com/', true)).toMatch(/credentials/);
  });
});
