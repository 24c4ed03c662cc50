import { describe, expect, it } from 'vitest';
import { ConfigError, enumSetting, intSetting, parseEnv, stringSetting, urlSetting } from './env.ts';

/** The ConfigError thrown by `fn`. */
function configError(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return err as ConfigError;
  }
  throw new Error('expected a ConfigError');
}

const schemas = {
  PORT: intSetting(8080, 1, 65535),
  NAME: stringSetting('svc'),
  URL: urlSetting(['http:']),
  LEVEL: enumSetting(['info', 'warn'] as const, 'info'),
};

describe('parseEnv', () => {
  it('uses the defaults when nothing is set', () => {
    expect(parseEnv(schemas, {})).toEqual({ PORT: 8080, NAME: 'svc', URL: undefined, LEVEL: 'info' });
  });

  it('parses the values that are set', () => {
    const env = { PORT: '9000', NAME: 'x', URL: 'http://h:1/', LEVEL: 'warn' };
    expect(parseEnv(schemas, env)).toEqual({ PORT: 9000, NAME: 'x', URL: 'http://h:1/', LEVEL: 'warn' });
  });

  it('treats an empty string as unset', () => {
    expect(parseEnv(schemas, { PORT: '', NAME: '', URL: '', LEVEL: '' })).toEqual(parseEnv(schemas, {}));
  });

  it('ignores variables it was not asked about', () => {
    expect(parseEnv({ PORT: schemas.PORT }, { PORT: '1', OTHER: 'junk' })).toEqual({ PORT: 1 });
  });

  it.each([
    ['abc', 'must be a whole number'],
    ['-5', 'must be a whole number'],
    ['1.5', 'must be a whole number'],
    ['0', 'must be at least 1'],
    ['65536', 'must be at most 65535'],
  ])('refuses PORT=%j: %s', (value, message) => {
    const err = configError(() => parseEnv(schemas, { PORT: value }));
    expect(err.message).toContain(`PORT: ${message}`);
    expect(err.message).toContain(JSON.stringify(value));
  });

  it('reports every problem in one error, each naming its variable', () => {
    const err = configError(() => parseEnv(schemas, { PORT: 'x', URL: 'nope', LEVEL: 'loud' }));
    expect(err.message).toMatch(/PORT: must be a whole number/);
    expect(err.message).toMatch(/URL: must be a URL/);
    expect(err.message).toMatch(/LEVEL: must be one of info, warn/);
    expect(err.message).not.toMatch(/NAME/);
  });
});
