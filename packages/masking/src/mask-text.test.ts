import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { compilePolicy, maskingHashKey } from './compile.ts';
import { maskText } from './mask-text.ts';
import { parsePolicy } from './policy.ts';

const compile = (rules: unknown[], hashKey = 'project-secret') => compilePolicy(parsePolicy({ rules }), { hashKey });

describe('replacement styles', () => {
  const text = 'mail bob@example.com now';

  it('type_tag (the default) shows the detector tag', () => {
    expect(maskText(compile([{ name: 'e', detector: 'email' }]), text).text).toBe('mail [EMAIL] now');
  });

  it('fixed shows the given text', () => {
    const policy = compile([{ name: 'e', detector: 'email', replacement: { style: 'fixed', text: '<redacted>' } }]);
    expect(maskText(policy, text).text).toBe('mail <redacted> now');
  });

  it('keep_last keeps the last n letters or digits', () => {
    const policy = compile([{ name: 'c', detector: 'credit_card', replacement: { style: 'keep_last', n: 4 } }]);
    expect(maskText(policy, 'card 4111 1111 1111 1111.').text).toBe('card **** **** **** 1111.');
    expect(maskText(policy, 'card 4111111111111111').text).toBe('card ************1111');
  });

  it('keep_last never keeps more than half, and keeps JSON escapes whole', () => {
    const policy = compile([{ name: 'c', pattern: 'ID\\d{3}', replacement: { style: 'keep_last', n: 8 } }]);
    expect(maskText(policy, 'x ID123 y').text).toBe('x ***23 y');
    const key = compile([{ name: 'k', detector: 'private_key', replacement: { style: 'keep_last', n: 2 } }]);
    const masked = maskText(key, '{"k":"-----BEGIN PRIVATE KEY-----\\nAB\\n-----END PRIVATE KEY-----"}').text;
    expect(JSON.parse(masked).k).toMatch(/^-----\*+ \*+ \*+-----\n\*+\n-----\*+ \*+ \*EY-----$/);
  });

  it('hash is a keyed, deterministic digest with the tag', () => {
    const policy = compile([{ name: 'e', detector: 'email', replacement: { style: 'hash' } }]);
    const digest = createHmac('sha256', 'project-secret').update('bob@example.com').digest('hex').slice(0, 10);
    expect(maskText(policy, text).text).toBe(`mail [EMAIL:${digest}] now`);
    // Equal values stay joinable; another key gives another digest.
    expect(maskText(policy, 'bob@example.com, bob@example.com').text).toBe(`[EMAIL:${digest}], [EMAIL:${digest}]`);
    const other = compile([{ name: 'e', detector: 'email', replacement: { style: 'hash' } }], 'other-project');
    expect(maskText(other, text).text).not.toContain(digest);
  });

  it('maskingHashKey derives one key per project from the service secret', () => {
    const rules = [{ name: 'e', detector: 'email', replacement: { style: 'hash' } }];
    const hashed = (secret: string, project: string) =>
      maskText(compilePolicy(parsePolicy({ rules }), { hashKey: maskingHashKey(secret, project) }), 'bob@example.com').text;
    expect(hashed('s', 'p1')).toBe(hashed('s', 'p1'));
    expect(hashed('s', 'p1')).not.toBe(hashed('s', 'p2'));
    expect(hashed('s', 'p1')).not.toBe(hashed('t', 'p1'));
  });

  it('custom rules are tagged with their name', () => {
    const policy = compile([
      { name: 'employee-id', pattern: '\\bEMP-\\d{6}\\b' },
      { name: 'ticket', pattern: 'tkt_[a-z0-9]{8}', replacement: { style: 'hash' } },
    ]);
    const masked = maskText(policy, 'EMP-123456 opened tkt_ab12cd34').text;
    expect(masked).toMatch(/^\[EMPLOYEE_ID\] opened \[TICKET:[0-9a-f]{10}\]$/);
  });
});

describe('custom rules', () => {
  it('honour flags', () => {
    const text = 'Secret: one\nsecret: two';
    expect(maskText(compile([{ name: 's', pattern: 'secret: \\w+' }]), text).text).toBe('Secret: one\n[S]');
    expect(maskText(compile([{ name: 's', pattern: 'secret: \\w+', flags: 'i' }]), text).text).toBe('[S]\n[S]');
    expect(maskText(compile([{ name: 's', pattern: '^secret: \\w+$', flags: 'im' }]), text).text).toBe('[S]\n[S]');
    expect(maskText(compile([{ name: 's', pattern: 'one.secret', flags: 's' }]), text).text).toBe('Secret: [S]: two');
  });

  it('mask only what a lookbehind leaves out', () => {
    const policy = compile([{ name: 'password', pattern: '(?<="password":\\s*")[^"]+' }]);
    expect(maskText(policy, '{"user":"bob","password":"hunter2"}').text).toBe('{"user":"bob","password":"[PASSWORD]"}');
  });

  it('work with unicode', () => {
    const policy = compile([{ name: 'name', pattern: '\\p{Lu}\\p{Ll}+ Müller', flags: 'u' }]);
    expect(maskText(policy, 'Herr Jürgen Müller 😀 kam').text).toBe('Herr [NAME] 😀 kam');
  });
});

describe('matches', () => {
  it('report rule, detector and positions in the original text', () => {
    const policy = compile([
      { name: 'emails', detector: 'email' },
      { name: 'order', pattern: 'ORD-\\d+' },
    ]);
    const text = 'ORD-1 to a@b.io and ORD-22';
    expect(maskText(policy, text)).toEqual({
      text: '[ORDER] to [EMAIL] and [ORDER]',
      matches: [
        { rule: 'order', start: 0, end: 5 },
        { rule: 'emails', detector: 'email', start: 9, end: 15 },
        { rule: 'order', start: 20, end: 26 },
      ],
    });
  });

  it('overlaps: earliest start wins, then the longest, then the earlier rule', () => {
    const policy = compile([
      { name: 'short', pattern: 'abc' },
      { name: 'long', pattern: 'abcdef' },
      { name: 'later', pattern: 'cdefgh' },
      { name: 'same', pattern: 'abc' },
    ]);
    const { text, matches } = maskText(policy, 'xabcdefgh');
    expect(text).toBe('x[LONG]gh');
    expect(matches).toEqual([{ rule: 'long', start: 1, end: 7 }]);
    // Equal spans: the rule listed first wins.
    expect(maskText(compile([{ name: 'first', pattern: 'abc' }, { name: 'second', pattern: 'abc' }]), 'abc').matches).toEqual([
      { rule: 'first', start: 0, end: 3 },
    ]);
  });

  it('a bearer header containing a JWT is masked once, by the longer match', () => {
    const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl';
    const policy = compile([
      { name: 'jwt', detector: 'jwt' },
      { name: 'bearer', detector: 'bearer_token' },
    ]);
    const { text, matches } = maskText(policy, `Authorization: Bearer ${jwt}`);
    // Both start at the token: equal spans, so the earlier rule (jwt) wins.
    expect(text).toBe('Authorization: Bearer [JWT]');
    expect(matches.map((m) => m.rule)).toEqual(['jwt']);
  });

  it('text without matches is returned as is', () => {
    const policy = compile([{ name: 'e', detector: 'email' }]);
    const text = 'nothing to see';
    expect(maskText(policy, text)).toEqual({ text, matches: [] });
  });
});

describe('field selection', () => {
  const policy = compile([
    { name: 'in', pattern: 'SECRET', fields: { input: true } },
    { name: 'out', pattern: 'SECRET', fields: { output: true } },
    { name: 'ev', pattern: 'SECRET', fields: { events: true } },
    { name: 'st', pattern: 'SECRET', fields: { statusMessage: true } },
    { name: 'attr', pattern: 'SECRET', fields: { attributes: ['user.*', 'db.statement'] } },
  ]);
  const ruleFor = (field: Parameters<typeof maskText>[2]) => maskText(policy, 'SECRET', field).matches.map((m) => m.rule);

  it('applies only the rules of that field', () => {
    expect(ruleFor('input')).toEqual(['in']);
    expect(ruleFor('output')).toEqual(['out']);
    expect(ruleFor('events')).toEqual(['ev']);
    expect(ruleFor('statusMessage')).toEqual(['st']);
    expect(ruleFor({ attribute: 'user.email' })).toEqual(['attr']);
    expect(ruleFor({ attribute: 'db.statement' })).toEqual(['attr']);
    expect(ruleFor({ attribute: 'db.statements' })).toEqual([]);
    expect(ruleFor({ attribute: 'username' })).toEqual([]);
  });

  it('applies every rule when no field is given (the /test endpoint)', () => {
    expect(ruleFor(undefined)).toEqual(['in']);
    expect(maskText(policy, 'SECRET').text).toBe('[IN]');
  });
});
