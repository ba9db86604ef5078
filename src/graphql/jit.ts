import { useGraphQlJit } from '@envelop/graphql-jit';
import { GraphQLError, Kind, type DocumentNode, type Source } from 'graphql';
import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import type { Logger } from '../platform/logger.ts';
import { createDocumentCache } from './limits.ts';

function singleOperation(document: DocumentNode): boolean {
  let operations = 0;
  for (const d of document.definitions) if (d.kind === Kind.OPERATION_DEFINITION) operations++;
  return operations === 1;
}

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
 * Compiled queries are cached by document text as well as by object: scope checking hands execution a
 * rewritten copy of the document on every request.
 */
export function useCompiledExecution(logger: Logger): Plugin {
  return {
    onPluginInit({ addPlugin }) {
      addPlugin(
        useGraphQlJit(
          {},
          {
            cache: createDocumentCache(),
            // One compiled query per document, whichever operation it was compiled for: a document of several
            // operations runs on graphql-js, so B never gets the answer compiled for A.
            enableIf: (args) => singleOperation(args.document),
            onError: (result) => logger.error({ errors: result.errors?.map((e) => e.message) }, 'graphql-jit could not compile'),
          },
        ) as Plugin,
      );
      addPlugin(useJitErrorLocations());
    },
  };
}
