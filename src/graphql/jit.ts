import { useGraphQlJit } from '@envelop/graphql-jit';
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
 * graphql-jit's errors carry `locations` but no `nodes`, `source` or
 * `positions`, and Yoga rebuilds every error from those three when it masks
 * and serialises, so a resolver's error would reach the client without its
 * locations. Rebuilt here as graphql-js errors pointing into the document's
 * source, which Yoga then keeps as graphql-js would have produced them.
 */
function withSourcePositions(error: GraphQLError, source: Source): GraphQLError {
  if (error.nodes || error.positions || !error.locations?.length) return error;
  return new GraphQLError(error.message, {
    source,
    positions: error.locations.map((l) => offsetOf(source.body, l.line, l.column)),
    path: error.path,
    originalError: error.originalError,
    extensions: error.extensions,
  });
}

const useJitErrorLocations = (): Plugin => ({
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

/**
 * Executes with graphql-jit: each distinct operation is compiled once (cached
 * per parsed document, and Yoga's parse cache hands back the same document
 * object) into plain JavaScript, instead of graphql-js walking the document on
 * every request. Errors come out as graphql-js would word and locate them.
 */
export function useCompiledExecution(): Plugin {
  return {
    onPluginInit({ addPlugin }) {
      addPlugin(useGraphQlJit() as Plugin);
      addPlugin(useJitErrorLocations());
    },
  };
}
