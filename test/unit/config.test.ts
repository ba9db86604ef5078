import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';

describe('loadConfig', () => {
  it('applies the documented defaults', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 4000,
      host: '127.0.0.1',
      databaseUrl: undefined,
      dataDir: path.resolve('./.data'),
      tokenExpirationMinutes: undefined,
      tokenPrefix: '',
      maxPageSize: 100,
      logLevel: 'info',
      corsOrigins: [],
    });
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('parses every variable it knows', () => {
    const config = loadConfig({
      PORT: '8080',
      HOST: '0.0.0.0',
      DATABASE_URL: 'postgres://u@db:5432/app',
      TOKEN_EXPIRATION_MINUTES: '60',
      TOKEN_PREFIX: 'pcs_',
      MAX_PAGE_SIZE: '50',
      LOG_LEVEL: 'debug',
      CORS_ORIGINS: 'https://a.example.com, https://b.example.com',
    });
    expect(config).toMatchObject({
      port: 8080,
      host: '0.0.0.0',
      databaseUrl: 'postgres://u@db:5432/app',
      tokenExpirationMinutes: 60,
      tokenPrefix: 'pcs_',
      maxPageSize: 50,
      logLevel: 'debug',
      corsOrigins: ['https://a.example.com', 'https://b.example.com'],
    });
  });

  it('treats empty optional variables as unset', () => {
    expect(loadConfig({ DATABASE_URL: '', TOKEN_EXPIRATION_MINUTES: '' })).toMatchObject({
      databaseUrl: undefined,
      tokenExpirationMinutes: undefined,
    });
  });

  it('reports every bad variable at once', () => {
    try {
      loadConfig({ PORT: 'abc', MAX_PAGE_SIZE: '0', DATABASE_URL: 'mysql://x', LOG_LEVEL: 'loud' });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      const problems = (err as ConfigError).problems.join('\n');
      for (const name of ['PORT', 'MAX_PAGE_SIZE', 'DATABASE_URL', 'LOG_LEVEL']) expect(problems).toContain(name);
    }
  });
});
