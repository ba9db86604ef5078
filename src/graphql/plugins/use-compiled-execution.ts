import { useGraphQlJit } from '@envelop/graphql-jit';
import { Kind, type DocumentNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Logger } from '../../platform/logger.ts';
import { createDocumentCache } from '../parse-caches.ts';
import { useJitErrorLocations } from './use-jit-error-locations.ts';

function singleOperation(document: DocumentNode): boolean {
  let operations = 0;
  for (const d of document.definitions) if (d.kind === Kind.OPERATION_DEFINITION) operations++;
  return operations === 1;
}

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
            onError: (result) =>
              logger.error({ errors: result.errors?.map((e) => e.message) }, 'graphql-jit could not compile'),
          },
        ) as Plugin,
      );
      addPlugin(useJitErrorLocations());
    },
  };
}
