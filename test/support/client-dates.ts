import fc from 'fast-check';

// Dates as clients write them, for the property tests of what the service accepts: each with whether it
// must be accepted (true), refused (false) or either, as long as the refusal is clean (undefined).

const EARLIEST = Date.parse('0001-01-01T00:00:00.000Z');
const LATEST = Date.parse('9999-12-31T23:59:59.999Z');

/** Whether an instant (ms) is one the service stores and answers unchanged: years 1 to 9999 in UTC. */
export const inRange = (ms: number) => ms >= EARLIEST && ms <= LATEST;

export interface ClientDate {
  text: string;
  accept: boolean | undefined;
}

const pad = (n: number, width: number) => String(n).padStart(width, '0');

/** Well-formed RFC 3339: years 0000 to 9999 (the edges often), any offset, no fraction or 1 to 12 digits of one. */
export const rfc3339: fc.Arbitrary<ClientDate> = fc
  .record({
    year: fc.oneof(fc.constantFrom(0, 1, 9999), fc.integer({ min: 0, max: 9999 })),
    month: fc.integer({ min: 1, max: 12 }),
    day: fc.integer({ min: 1, max: 28 }),
    hour: fc.integer({ min: 0, max: 23 }),
    minute: fc.integer({ min: 0, max: 59 }),
    second: fc.integer({ min: 0, max: 59 }),
    fraction: fc.option(fc.stringMatching(/^[0-9]{1,12}$/), { nil: undefined }),
    offset: fc.oneof(
      fc.constant('Z'),
      fc
        .tuple(fc.constantFrom('+', '-'), fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 }))
        .map(([sign, h, m]) => `${sign}${pad(h, 2)}:${pad(m, 2)}`),
    ),
  })
  .map((d) => {
    const text =
      `${pad(d.year, 4)}-${pad(d.month, 2)}-${pad(d.day, 2)}T${pad(d.hour, 2)}:${pad(d.minute, 2)}:${pad(d.second, 2)}` +
      `${d.fraction === undefined ? '' : `.${d.fraction}`}${d.offset}`;
    return { text, accept: inRange(Date.parse(text)) };
  });

/** Any instant JavaScript holds, as toISOString writes it: a sign and six digits outside years 0000 to 9999. */
export const isoInstant: fc.Arbitrary<ClientDate> = fc
  .date({ min: new Date(-8.64e15), max: new Date(8.64e15), noInvalidDate: true })
  .map((d) => d.toISOString())
  .map((text) => ({ text, accept: /^[0-9]{4}-/.test(text) && inRange(Date.parse(text)) }));

/** Anything at all: accepted or not, never an internal error. */
export const anyText: fc.Arbitrary<ClientDate> = fc
  .string({ maxLength: 40 })
  .map((text) => ({ text, accept: undefined }));

export const clientDate = fc.oneof(rfc3339, isoInstant, anyText);

/** Instants as the service writes them (toISOString), from year 0000 to just past 9999: a cursor's sort keys. */
export const writtenInstant: fc.Arbitrary<ClientDate> = fc
  .oneof(
    fc.integer({ min: Date.parse('0000-01-01T00:00:00.000Z'), max: LATEST + 86_400_000 }),
    fc.constantFrom(EARLIEST - 1, EARLIEST, LATEST, LATEST + 1),
  )
  .map((ms) => ({ text: new Date(ms).toISOString(), accept: inRange(ms) }));
