import { GraphQLError, Kind, type GraphQLScalarType } from 'graphql';

const DECIMAL = /^-?\d+\.\d{2}$/;

function decimal(value: unknown): string {
  if (typeof value === 'string' && DECIMAL.test(value)) return value;
  throw new GraphQLError(
    `Decimal must be a string with exactly two decimals, such as "1234.50"; got ${JSON.stringify(value)}.`,
  );
}

/** `Decimal`'s behaviour alone (the description stays the SDL's): money formatted in cents, never a float. */
export const decimalScalar = {
  serialize: decimal,
  parseValue: decimal,
  parseLiteral: (ast: { kind: Kind; value?: string }) => decimal(ast.kind === Kind.STRING ? ast.value : undefined),
} as unknown as GraphQLScalarType;
