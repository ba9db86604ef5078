import fc from 'fast-check';
import { GraphQLError, Kind } from 'graphql';
import { describe, expect, it } from 'vitest';
import { scalarResolvers } from '../../src/graphql/scalars.ts';
import { productQueryOf, bindingOf, validSortValue } from '../../src/modules/catalog/find/query.ts';
import { decodeKeysetCursor, encodeKeysetCursor } from '../../src/modules/catalog/pagination.ts';
import { BadInput } from '../../src/platform/errors.ts';
import { isStorableInstant } from '../../src/platform/instants.ts';
import { clientDate, inRange, isoInstant, rfc3339, writtenInstant, type ClientDate } from '../support/client-dates.ts';

// Every date a client sends is checked against what PostgreSQL stores and the service answers unchanged
// (years 1 to 9999 in UTC) before any SQL: the DateTime scalar, a keyset cursor's sort key, the filter.

const { DateTime } = scalarResolvers;

/** The scalar's answer to a date in a variable and in the document: the Date, or the refusal's code. */
function parsed(text: string): { value?: Date; code?: unknown }[] {
  return [() => DateTime.parseValue(text), () => DateTime.parseLiteral({ kind: Kind.STRING, value: text })].map(
    (parse) => {
      try {
        return { value: parse() };
      } catch (error) {
        expect(error).toBeInstanceOf(GraphQLError);
        return { code: (error as GraphQLError).extensions['code'] };
      }
    },
  );
}

describe('the instants a client may send', () => {
  it('are years 1 to 9999 in UTC, to the millisecond', () => {
    for (const [text, ok] of [
      ['0001-01-01T00:00:00.000Z', true],
      ['0000-12-31T23:59:59.999Z', false],
      ['9999-12-31T23:59:59.999Z', true],
      ['+010000-01-01T00:00:00.000Z', false],
      ['-000001-01-01T00:00:00.000Z', false],
    ] as const)
      expect(isStorableInstant(new Date(text)), text).toBe(ok);
    expect(isStorableInstant(new Date(NaN))).toBe(false);
  });

  it('DateTime takes a well-formed date in range and refuses every other as BAD_USER_INPUT, in a variable or a literal', () => {
    for (const [text, accept] of [
      ['0000-01-01T00:00:00Z', false],
      ['0001-01-01T00:00:00+01:00', false],
      ['0001-01-01T00:00:00-01:00', true],
      ['9999-12-31T23:59:59-23:59', false],
      ['9999-12-31T23:59:59.999999Z', true],
      ['yesterday', false],
    ] as const) {
      for (const result of parsed(text)) expect(result.code === undefined, text).toBe(accept);
    }
    fc.assert(
      fc.property(clientDate, ({ text, accept }: ClientDate) => {
        for (const result of parsed(text)) {
          if (result.code !== undefined) expect(result.code, text).toBe('BAD_USER_INPUT');
          if (accept !== undefined) expect(result.code === undefined, text).toBe(accept);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('DateTime answers what it accepts in a form it accepts back unchanged (digits past the millisecond dropped)', () => {
    fc.assert(
      fc.property(fc.oneof(rfc3339, isoInstant), ({ text, accept }: ClientDate) => {
        if (!accept) return;
        const date = DateTime.parseValue(text);
        const answered = JSON.parse(JSON.stringify(DateTime.serialize(date))) as string;
        expect(answered).toMatch(/^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z$/);
        expect(DateTime.parseValue(answered).getTime()).toBe(date.getTime());
      }),
      { numRuns: 1000 },
    );
  });

  it('a keyset cursor decodes only sort keys the service could have written, whatever its checksum says', () => {
    for (const column of ['UPDATED_AT', 'CREATED_AT'] as const) {
      const query = productQueryOf({ orderBy: [{ column }] });
      const binding = bindingOf(query);
      const decode = (cursor: string) =>
        decodeKeysetCursor(binding, cursor, 1, (i, value) => validSortValue(query, i, value));
      const forged = (value: string) => encodeKeysetCursor(binding, { values: [value], id: '1' });
      expect(decode(forged('0000-01-01T00:00:00.000Z'))).toBeNull();
      expect(decode(forged('0001-01-01T00:00:00.000Z'))).not.toBeNull();
      fc.assert(
        fc.property(
          fc.oneof(writtenInstant, clientDate).map((d) => d.text),
          (value) => {
            const sound =
              /^[0-9]{4}-/.test(value) && inRange(Date.parse(value)) && new Date(value).toISOString() === value;
            const position = decode(forged(value));
            expect(position !== null, value).toBe(sound);
          },
        ),
        { numRuns: 2000 },
      );
      // Random text as a cursor: refused or a sound position, never a throw.
      fc.assert(
        fc.property(fc.string({ maxLength: 200 }), (text) => {
          const position = decode(Buffer.from(text).toString('base64url'));
          if (position) expect(inRange(Date.parse(position.values[0]!))).toBe(true);
        }),
      );
    }
  });

  it('the products filter refuses an updatedAfter out of range, whoever built the Date', () => {
    expect(() => productQueryOf({ filter: { updatedAfter: new Date('0000-06-01T00:00:00Z') } })).toThrow(BadInput);
    expect(() => productQueryOf({ filter: { updatedAfter: new Date(8.64e15) } })).toThrow(BadInput);
    expect(productQueryOf({ filter: { updatedAfter: new Date('0001-01-01T00:00:00Z') } }).updatedAfter).toEqual(
      new Date('0001-01-01T00:00:00Z'),
    );
  });
});
