import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';

describe('loadConfig', () => {
  it('applies the documented defaults', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      http: {
        port: 4000,
        host: '127.0.0.1',
        corsOrigins: [],
        send: { timeoutMs: 30_000, maxBufferedBytes: 1024 * 1024, stallTimeoutMs: 5_000 },
      },
      database: { url: undefined, dataDir: path.resolve('./.data') },
      auth: { tokens: { expirationMinutes: undefined, prefix: '' } },
      logging: { level: 'info' },
      graphiql: { enabled: true, maxConcurrentSends: 8, sendTimeoutMs: 30_000 },
      graphql: { maxPageSize: 100, maxInFlightPerToken: 16, maxInFlightPerUser: 32 },
    });
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('caps a user at twice the per-token cap unless told otherwise', () => {
    expect(loadConfig({ GRAPHQL_MAX_IN_FLIGHT_PER_TOKEN: '5' }).graphql.maxInFlightPerUser).toBe(10);
    expect(
      loadConfig({ GRAPHQL_MAX_IN_FLIGHT_PER_TOKEN: '5', GRAPHQL_MAX_IN_FLIGHT_PER_USER: '64' }).graphql
        .maxInFlightPerUser,
    ).toBe(64);
    expect(() => loadConfig({ RESPONSE_SEND_TIMEOUT_MS: '10' })).toThrow(ConfigError);
  });

  it('turns the GraphiQL page off with GRAPHIQL=off, and refuses anything but on or off', () => {
    expect(loadConfig({ GRAPHIQL: 'off' }).graphiql.enabled).toBe(false);
    expect(loadConfig({ GRAPHIQL: 'on' }).graphiql.enabled).toBe(true);
    expect(() => loadConfig({ GRAPHIQL: 'no' })).toThrow(/GRAPHIQL.*must be on or off/);
  });

  it('names prepared statements unless DATABASE_PREPARED_STATEMENTS=false, and refuses anything but true or false', () => {
    expect(loadConfig({}).database.preparedStatements).toBe(true);
    expect(loadConfig({ DATABASE_PREPARED_STATEMENTS: 'false' }).database.preparedStatements).toBe(false);
    expect(() => loadConfig({ DATABASE_PREPARED_STATEMENTS: 'no' })).toThrow(
      /DATABASE_PREPARED_STATEMENTS.*must be true or false/,
    );
  });

  it('reads replica URLs as a list, refuses one that is not a postgres URL, and refuses replicas without DATABASE_URL', () => {
    const pg = { DATABASE_URL: 'postgres://u@db:5432/app' };
    expect(loadConfig(pg).database.replicaUrls).toEqual([]);
    expect(
      loadConfig({ ...pg, DATABASE_REPLICA_URLS: ' postgres://u@r1/app, ,postgresql://u@r2:6432/app ' }).database,
    ).toMatchObject({ replicaUrls: ['postgres://u@r1/app', 'postgresql://u@r2:6432/app'], replicaMaxLagMs: 1_000 });
    expect(() => loadConfig({ ...pg, DATABASE_REPLICA_URLS: 'postgres://u@r1/app,mysql://r2' })).toThrow(
      /DATABASE_REPLICA_URLS.*comma-separated list of postgres/,
    );
    expect(() => loadConfig({ DATABASE_REPLICA_URLS: 'postgres://u@r1/app' })).toThrow(
      /DATABASE_REPLICA_URLS.*needs DATABASE_URL/,
    );
    expect(() => loadConfig({ ...pg, DATABASE_REPLICA_MAX_LAG_MS: '5' })).toThrow(/DATABASE_REPLICA_MAX_LAG_MS/);
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
      GRAPHIQL_MAX_CONCURRENT_SENDS: '2',
      GRAPHIQL_SEND_TIMEOUT_MS: '5000',
    });
    expect(config).toMatchObject({
      graphiql: { maxConcurrentSends: 2, sendTimeoutMs: 5000 },
      http: { port: 8080, host: '0.0.0.0', corsOrigins: ['https://a.example.com', 'https://b.example.com'] },
      database: { url: 'postgres://u@db:5432/app' },
      auth: { tokens: { expirationMinutes: 60, prefix: 'pcs_' } },
      graphql: { maxPageSize: 50 },
      logging: { level: 'debug' },
    });
  });

  it('configuration settings: a known currency, save bound and retention', () => {
    expect(loadConfig({})).toMatchObject({
      catalog: { currency: 'EUR' },
      configurations: { savesPerMinute: 30, retentionDays: undefined },
    });
    expect(
      loadConfig({ CATALOG_CURRENCY: 'usd', CONFIGURATION_SAVES_PER_MINUTE: '5', CONFIGURATION_RETENTION_DAYS: '90' }),
    ).toMatchObject({ catalog: { currency: 'USD' }, configurations: { savesPerMinute: 5, retentionDays: 90 } });
    expect(() => loadConfig({ CATALOG_CURRENCY: 'XYZ1' })).toThrow(/CATALOG_CURRENCY="XYZ1": must be an ISO 4217/);
    expect(() => loadConfig({ CONFIGURATION_SAVES_PER_MINUTE: '0' })).toThrow(/CONFIGURATION_SAVES_PER_MINUTE/);
  });

  it('treats empty optional variables as unset', () => {
    expect(loadConfig({ DATABASE_URL: '', TOKEN_EXPIRATION_MINUTES: '' })).toMatchObject({
      database: { url: undefined },
      auth: { tokens: { expirationMinutes: undefined } },
    });
  });

  it('reports every bad variable at once', () => {
    try {
      loadConfig({
        PORT: 'abc',
        MAX_PAGE_SIZE: '0',
        DATABASE_URL: 'mysql://x',
        LOG_LEVEL: 'loud',
        GRAPHIQL_MAX_CONCURRENT_SENDS: '0',
        GRAPHIQL_SEND_TIMEOUT_MS: '10',
      });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      const problems = (err as ConfigError).problems.join('\n');
      for (const name of [
        'PORT',
        'MAX_PAGE_SIZE',
        'DATABASE_URL',
        'LOG_LEVEL',
        'GRAPHIQL_MAX_CONCURRENT_SENDS',
        'GRAPHIQL_SEND_TIMEOUT_MS',
      ]) {
        expect(problems).toContain(name);
      }
    }
  });

  describe('WEB_CONCURRENCY', () => {
    const problemsOf = (env: NodeJS.ProcessEnv) => {
      try {
        loadConfig(env);
      } catch (err) {
        if (err instanceof ConfigError) return err.problems;
        throw err;
      }
      return [];
    };
    const pg = { DATABASE_URL: 'postgres://u@db:5432/app' };

    it('defaults to one process', () => {
      expect(loadConfig({}).runtime.workers).toBe(1);
    });

    it('takes a count, or auto for every core this process may use', () => {
      expect(loadConfig({ ...pg, WEB_CONCURRENCY: '3' }).runtime.workers).toBe(3);
      expect(loadConfig({ ...pg, WEB_CONCURRENCY: ' Auto ' }).runtime.workers).toBe(
        Math.min(64, os.availableParallelism()),
      );
    });

    it('refuses what is not a count from 1 to 64, once per variable', () => {
      for (const value of ['0', '65', '1.5', 'two', '']) {
        expect(problemsOf({ ...pg, WEB_CONCURRENCY: value })).toEqual([
          `WEB_CONCURRENCY=${JSON.stringify(value)}: must be auto or a whole number between 1 and 64`,
        ]);
      }
    });

    it('refuses several workers on the embedded database, which admits one process', () => {
      expect(loadConfig({ WEB_CONCURRENCY: '1' }).runtime.workers).toBe(1);
      const [problem, ...others] = problemsOf({ WEB_CONCURRENCY: '2' });
      expect(others).toEqual([]);
      expect(problem).toMatch(/^WEB_CONCURRENCY="2": 2 workers need a PostgreSQL server \(DATABASE_URL\)/);
    });
  });
});
