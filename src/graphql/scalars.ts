import { GraphQLError, type GraphQLScalarType, type ValueNode } from 'graphql';
import { createGraphQLError } from 'graphql-yoga';
import { DateTimeResolver } from 'graphql-scalars';
import { EARLIEST_INSTANT, isStorableInstant, LATEST_INSTANT } from '../platform/instants.ts';

// The behaviour alone: buildSubgraphSchema copies every property it is given onto the type, and the
// description (and anything else) stays the SDL's.
const behaviour = ({ serialize, parseValue, parseLiteral }: GraphQLScalarType) => ({
  serialize,
  parseValue,
  parseLiteral,
});

/** A date a client sent that the service refuses: bad input, in a variable or in the document alike. */
const refusal = (message: string, node?: ValueNode) =>
  createGraphQLError(message, { ...(node ? { nodes: node } : {}), extensions: { code: 'BAD_USER_INPUT' } });

/** graphql-scalars' parse, then the range the service stores and answers unchanged (platform/instants). */
function storable(parse: () => unknown, node?: ValueNode): Date {
  let date: unknown;
  try {
    date = parse();
  } catch (error) {
    // Its wording, with our code: in a literal it would otherwise be a validation failure, in a variable bad input.
    if (error instanceof GraphQLError) throw refusal(error.message, node);
    throw error;
  }
  if (date instanceof Date && isStorableInstant(date)) return date;
  throw refusal(`DateTime out of range: the earliest is ${EARLIEST_INSTANT} and the latest ${LATEST_INSTANT}.`, node);
}

const dateTime = behaviour(DateTimeResolver);

/** The shared scalars of schema/base.graphql. */
export const scalarResolvers = {
  DateTime: {
    serialize: dateTime.serialize,
    parseValue: (value: unknown) => storable(() => dateTime.parseValue(value)),
    // One parameter, as graphql-scalars' own: a DateTime literal is a string and holds no variable, and
    // graphql-jit logs an error for every literal parsed by a parser that takes them.
    parseLiteral: (node: ValueNode) => storable(() => dateTime.parseLiteral(node), node),
  },
};
