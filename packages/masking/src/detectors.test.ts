import { describe, expect, it } from 'vitest';
import { compilePolicy } from './compile.ts';
import { DETECTOR_NAMES, type DetectorName } from './detectors.ts';
import { maskText } from './mask-text.ts';
import { parsePolicy } from './policy.ts';

/** The substrings one detector masks in a text. */
function found(detector: DetectorName, text: string): string[] {
  const policy = compilePolicy(parsePolicy({ rules: [{ name: 'r', detector }] }), { hashKey: 'k' });
  return maskText(policy, text).matches.map((m) => text.slice(m.start, m.end));
}

function expectDetects(detector: DetectorName, positives: Record<string, string>, negatives: string[]): void {
  for (const [text, secret] of Object.entries(positives)) {
    it(`finds ${JSON.stringify(secret)} in ${JSON.stringify(text)}`, () => {
      expect(found(detector, text)).toEqual([secret]);
    });
  }
  for (const text of negatives) {
    it(`finds nothing in ${JSON.stringify(text)}`, () => {
      expect(found(detector, text)).toEqual([]);
    });
  }
}

describe('email', () => {
  expectDetects(
    'email',
    {
      'contact jane.doe+tag@example.co.uk today': 'jane.doe+tag@example.co.uk',
      '{"to":"a_b@mail-server.example.com"}': 'a_b@mail-server.example.com',
      'Mail: John.Smith@Example.ORG.': 'John.Smith@Example.ORG',
    },
    ['no at sign here', 'user@localhost', '@handle on social', 'a@b', 'x@1.2', 'package@1.2.3'],
  );
});

describe('phone', () => {
  expectDetects(
    'phone',
    {
      'call +44 20 7946 0958 now': '+44 20 7946 0958',
      'tel:+15551234567': '+15551234567',
      'US (555) 123-4567 office': '(555) 123-4567',
      'cell 555-123-4567.': '555-123-4567',
      'dotted 555.123.4567': '555.123.4567',
      'UK 020 7946 0958': '020 7946 0958',
      'portable 06 12 34 56 78': '06 12 34 56 78',
      '+33 6 12 34 56 78': '+33 6 12 34 56 78',
    },
    [
      'date 2024-01-15 and 15.01.2024',
      'at 2024-01-15T10:30:45.123Z',
      'version 1.2.3 and 10.0.19041.1',
      'order id 12345678901234',
      'ip 192.168.100.1',
      'total +12 items', // too few digits
      '+1234567890123456789', // too many digits for E.164
      'build 2024.01.15',
      'uuid 550e8400-e29b-41d4-a716-446655440000',
    ],
  );
});

describe('credit_card', () => {
  expectDetects(
    'credit_card',
    {
      'card 4111 1111 1111 1111 exp 12/28': '4111 1111 1111 1111',
      'card=4111-1111-1111-1111': '4111-1111-1111-1111',
      '5500005555555559': '5500005555555559',
      'amex 3782 822463 10005': '3782 822463 10005',
      'visa13 4222222222222.': '4222222222222',
    },
    [
      '4111 1111 1111 1112', // Luhn fails
      '1700000000123456789', // ns timestamp, Luhn-valid or not, no brand starts with 1
      '4111111111111111111111', // too long
      '9999 9999 9999 9995',
      'phone 555-123-4567',
    ],
  );
});

describe('iban', () => {
  expectDetects(
    'iban',
    {
      'pay to DE89 3704 0044 0532 0130 00 please': 'DE89 3704 0044 0532 0130 00',
      'GB82WEST12345698765432': 'GB82WEST12345698765432',
      'iban: FR1420041010050500013M02606.': 'FR1420041010050500013M02606',
    },
    [
      'DE88 3704 0044 0532 0130 00', // wrong check digits
      'GB82WEST1234569876543', // wrong length for GB
      'QQ82WEST12345698765432', // no such country
      'AB12CDEF', // too short
    ],
  );
});

describe('national_id', () => {
  expectDetects(
    'national_id',
    {
      'ssn 123-45-6789': '123-45-6789',
      'SSN: 078 05 1120': '078 05 1120',
      'nino AB 12 34 56 C ok': 'AB 12 34 56 C',
      'NI number AB123456C': 'AB123456C',
      'NIR 1 84 12 76 451 089 46': '1 84 12 76 451 089 46',
      'DNI 12345678Z': '12345678Z',
      'NIE X1234567L': 'X1234567L',
    },
    [
      '000-12-3456', // area 000
      '666-12-3456', // area 666
      '912-34-5678', // area 9xx
      '123-00-4567', // group 00
      '123-45-0000', // serial 0000
      '123456789', // unformatted 9 digits: too many ids look like this
      'QQ123456C', // Q is never a NINO prefix letter
      'GB123456A', // GB is excluded
      '1 84 12 76 451 089 47', // NIR key wrong
      '12345678A', // DNI letter wrong
    ],
  );
});

describe('ip_address', () => {
  expectDetects(
    'ip_address',
    {
      'from 192.168.1.20 via': '192.168.1.20',
      'host 10.0.0.1.': '10.0.0.1',
      'v6 2001:db8::8a2e:370:7334 end': '2001:db8::8a2e:370:7334',
      'loopback ::1 here': '::1',
      'mapped ::ffff:192.0.2.1': '::ffff:192.0.2.1',
      'full 2001:0db8:0000:0000:0000:ff00:0042:8329': '2001:0db8:0000:0000:0000:ff00:0042:8329',
    },
    [
      '999.1.1.1',
      '256.1.1.1',
      'version 1.2.3.4.5',
      'time 12:30:45',
      'std::vector<int>',
      'mac 00:1A:2B:3C:4D:5E',
      '1.2.3',
    ],
  );
});

describe('api_key', () => {
  expectDetects(
    'api_key',
    {
      'key sk-proj-AbC123dEf456GhI789jKl012MnO345 used': 'sk-proj-AbC123dEf456GhI789jKl012MnO345',
      'sk-ant-api03-abcDEF123456ghiJKL789mnoPQR': 'sk-ant-api03-abcDEF123456ghiJKL789mnoPQR',
      'aws AKIAIOSFODNN7EXAMPLE': 'AKIAIOSFODNN7EXAMPLE',
      'token ghp_abcdefghijklmnopqrstuvwxyz0123456789': 'ghp_abcdefghijklmnopqrstuvwxyz0123456789',
      'github_pat_11ABCDEFG0123456789_abcdefghijklmnop': 'github_pat_11ABCDEFG0123456789_abcdefghijklmnop',
      'slack xoxb-1234567890-abcdefghij': 'xoxb-1234567890-abcdefghij',
      'stripe sk_live_4eC39HqLyjWDarjtT1zdp7dc': 'sk_live_4eC39HqLyjWDarjtT1zdp7dc',
      'google AIzaSyA1234567890abcdefghijklmnopqrstuv': 'AIzaSyA1234567890abcdefghijklmnopqrstuv',
      'api_key=abcd1234efgh5678': 'abcd1234efgh5678',
      '{"apiKey": "Zx9Qw8Er7Ty6Ui5O"}': 'Zx9Qw8Er7Ty6Ui5O',
      'CLIENT_SECRET: s3cr3tvalue99': 's3cr3tvalue99',
    },
    [
      'sk-learn-style-package-names-are-not-keys',
      'ask-questions-about-anything-at-all-12345', // "sk-" inside a word
      'AKIA short',
      'the access_token: refreshed',
      'api_key=short1',
      'pk_live_4eC39HqLyjWDarjtT1zdp7dc', // publishable, not secret
    ],
  );
});

describe('bearer_token', () => {
  expectDetects(
    'bearer_token',
    {
      'Authorization: Bearer abc123DEF456ghi789JKL': 'abc123DEF456ghi789JKL',
      'curl -H "authorization: token 0123456789abcdef0123"': '0123456789abcdef0123',
      'sent bearer Zm9vYmFyMTIzNDU2Nzg5MA== ok': 'Zm9vYmFyMTIzNDU2Nzg5MA==',
      '{"Authorization":"Basic dXNlcjpwYXNzd29yZDEyMw=="}': 'dXNlcjpwYXNzd29yZDEyMw==',
    },
    ['a Bearer token is required for this endpoint', 'Authorization: required', 'bearer short12'],
  );
});

const JWT =
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c';

describe('jwt', () => {
  expectDetects(
    'jwt',
    {
      [`token=${JWT}&x=1`]: JWT,
      [`"${JWT}"`]: JWT,
      // alg none: empty signature
      'eyJhbGciOiJub25lIn0.eyJzdWIiOiIxIn0.': 'eyJhbGciOiJub25lIn0.eyJzdWIiOiIxIn0.',
    },
    [
      'eyJub3QiOiJhIGp3dCJ9.eyJzdWIiOiIxIn0.abc', // header JSON without alg
      'eyJ!!!!.bad.parts',
      'eyJhbGciOiJIUzI1NiJ9', // one part
    ],
  );
});

const PEM = '-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA1234\nabcd==\n-----END RSA PRIVATE KEY-----';

describe('private_key', () => {
  expectDetects(
    'private_key',
    {
      [`key:\n${PEM}\nthanks`]: PEM,
      ['{"k":"-----BEGIN PRIVATE KEY-----\\nMIIEvQ\\n-----END PRIVATE KEY-----"}']:
        '-----BEGIN PRIVATE KEY-----\\nMIIEvQ\\n-----END PRIVATE KEY-----',
      '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk': '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk', // cut before END
      '-----BEGIN PGP PRIVATE KEY BLOCK-----\nlQ\n-----END PGP PRIVATE KEY BLOCK-----': '-----BEGIN PGP PRIVATE KEY BLOCK-----\nlQ\n-----END PGP PRIVATE KEY BLOCK-----',
    },
    ['-----BEGIN PUBLIC KEY-----\nMIIB\n-----END PUBLIC KEY-----', '-----BEGIN CERTIFICATE-----\nMIIC\n-----END CERTIFICATE-----'],
  );
});

describe('every detector', () => {
  // The shortest texts each detector must still match (its minLength must not skip them).
  const SHORTEST: Record<DetectorName, string> = {
    email: 'a@b.co',
    phone: '+12345678',
    credit_card: '4222222222222',
    iban: 'NO9386011117947',
    national_id: 'AB123456C',
    ip_address: '::',
    api_key: 'apikey=abcd1234',
    bearer_token: 'bearer abcdefghijklmno1',
    jwt: 'eyJhbGciOiJub25lIn0.e30.',
    private_key: '-----BEGIN PRIVATE KEY-----',
  };
  it.each(DETECTOR_NAMES)('%s matches its shortest form', (detector) => {
    const text = SHORTEST[detector];
    const masked = found(detector, text);
    expect(masked.join('').length).toBeGreaterThan(0);
    expect(text).toContain(masked[0]);
  });

  it('is covered by this file', () => {
    expect(DETECTOR_NAMES.length).toBe(10);
  });

  it('stays linear on long adversarial inputs', () => {
    const inputs = ['a'.repeat(200_000) + '@', '1'.repeat(200_000), '1.'.repeat(100_000), ':'.repeat(200_000), 'eyJ'.repeat(60_000), ' '.repeat(200_000) + 'bearer'];
    for (const detector of DETECTOR_NAMES) {
      for (const input of inputs) {
        const started = performance.now();
        found(detector, input);
        // Generous bound: a quadratic scan of 200k characters takes minutes.
        expect(performance.now() - started, `${detector} on ${input.slice(0, 10)}…`).toBeLessThan(2_000);
      }
    }
  });
});
