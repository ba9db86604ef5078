import type { GraphQLScalarType } from 'graphql';
import { DateTimeResolver } from 'graphql-scalars';

// The behaviour alone: buildSubgraphSchema copies every property it is given onto the type, and the
// description (and anything else) stays the SDL's.
const behaviour = ({ serialize, parseValue, parseLiteral }: GraphQLScalarType) => ({
  serialize,
  parseValue,
  parseLiteral,
});

/** The shared scalars of schema/base.graphql. */
export const scalarResolvers = {
  DateTime: behaviour(DateTimeResolver),
};
