import { describe, expect, it } from 'vitest';
import { isDatabaseUnavailable } from '../../src/platform/db-errors.ts';

const withCode = (code: string, message = 'x') => Object.assign(new Error(message), { code });

describe('isDatabaseUnavailable', () => {
  it.each([
    ['a refused connection', withCode('ECONNREFUSED')],
    ['a reset connection', withCode('ECONNRESET')],
    ['a connect timeout from the pool', new Error('timeout exceeded when trying to connect')],
    ['a connection dropped mid-query', new Error('Connection terminated unexpectedly')],
    ['a client-side query timeout', new Error('Query read timeout')],
    ['an admin shutdown', withCode('57P01')],
    ['a server starting up', withCode('57P03')],
    ['statement_timeout', withCode('57014')],
    ['too many connections', withCode('53300')],
    ['any connection exception (class 08)', withCode('08006')],
    ['a cause chain', new Error('Migration x failed', { cause: withCode('ECONNREFUSED') })],
    [
      'a GraphQL originalError',
      Object.assign(new Error('Unexpected error.'), { originalError: new Error('Connection terminated') }),
    ],
    [
      'a dual-stack AggregateError',
      new AggregateError([withCode('ECONNREFUSED'), withCode('ECONNREFUSED')], 'connect failed'),
    ],
  ])('%s means the database is away', (_name, err) => {
    expect(isDatabaseUnavailable(err)).toBe(true);
  });

  it.each([
    ['a unique violation', withCode('23505')],
    ['a syntax error', withCode('42601')],
    ['a missing table', withCode('42P01')],
    ['a plain bug', new TypeError("Cannot read properties of undefined (reading 'id')")],
    ['not an error', 'ECONNREFUSED'],
    ['nothing', undefined],
  ])('%s is not', (_name, err) => {
    expect(isDatabaseUnavailable(err)).toBe(false);
  });

  it('terminates on a cause cycle', () => {
    const a: Error & { cause?: unknown } = new Error('a');
    const b = new Error('b', { cause: a });
    a.cause = b;
    expect(isDatabaseUnavailable(a)).toBe(false);
  });
});
