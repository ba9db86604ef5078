import { z } from 'zod';

// The value types settings are made of, and the group: the variables it reads and the settings it makes.

export const optionalNonEmpty = z
  .string()
  .trim()
  .transform((v) => (v === '' ? undefined : v))
  .optional();

export const intInRange = (min: number, max: number) =>
  z.coerce
    .number({ error: `must be a whole number between ${min} and ${max}` })
    .int({ error: `must be a whole number between ${min} and ${max}` })
    .min(min, { error: `must be a whole number between ${min} and ${max}` })
    .max(max, { error: `must be a whole number between ${min} and ${max}` });

export const optionalInt = (min: number, max: number) =>
  z.preprocess((v) => (typeof v === 'string' && v.trim() === '' ? undefined : v), intInRange(min, max).optional());

export const postgresUrl = optionalNonEmpty.pipe(
  z
    .string()
    .refine((v) => /^postgres(ql)?:\/\//.test(v), { error: 'must be a postgres:// or postgresql:// URL' })
    .optional(),
);

/** A comma-separated list, each item trimmed and checked by `item`; unset or empty: none. */
export const commaList = (item: z.ZodType<string, string>) =>
  z
    .string()
    .default('')
    .transform((v) =>
      v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    )
    .pipe(z.array(item));

/** Comma-separated postgres:// URLs. */
export const postgresUrlList = commaList(
  z.string().refine((v) => /^postgres(ql)?:\/\//.test(v) && URL.canParse(v), {
    error: 'must be a comma-separated list of postgres:// or postgresql:// URLs',
  }),
);

/** A group of settings: the variables it reads, and what it makes of them once they are valid. */
export const group = <Shape extends z.ZodRawShape, Settings>(
  shape: Shape,
  read: (env: z.output<z.ZodObject<Shape>>) => Settings,
) => ({
  shape,
  read,
});
