import { GraphQLError, type Source } from 'graphql';
import { isAsyncIterable, type Plugin } from 'graphql-yoga';

/** The offset in `body` of a 1-based line and column, as graphql-js's getLocation counts them. */
function offsetOf(body: string, line: number, column: number): number {
  const lineBreak = /\r\n|[\n\r]/g;
  let lineStart = 0;
  for (let current = 1; current < line; current++) {
    const match = lineBreak.exec(body);
    if (!match) break;
    lineStart = match.index + match[0].length;
  }
  return lineStart + column - 1;
}

/**
 * graphql-jit's errors carry `locations` but no `nodes`, `source` or `positions`, from which Yoga rebuilds
 * every error, so they would reach the client without locations.
 */
export function withSourcePositions(error: GraphQLError, source: Source): GraphQLError {
  if (error.nodes || error.positions || !error.locations?.length) return error;
  return new GraphQLError(error.message, {
    source,
    positions: error.locations.map((l) => offsetOf(source.body, l.line, l.column)),
    path: error.path,
    originalError: error.originalError,
    extensions: error.extensions,
  });
}

export const useJitErrorLocations = (): Plugin => ({
  onExecute({ args }) {
    return {
      onExecuteDone({ result, setResult }) {
        if (isAsyncIterable(result) || !result.errors?.length) return;
        const source = args.document.loc?.source;
        if (!source) return;
        setResult({ ...result, errors: result.errors.map((e) => withSourcePositions(e, source)) });
      },
    };
  },
});
