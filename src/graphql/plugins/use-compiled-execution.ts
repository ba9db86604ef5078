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
 * Scope checking (@envelop/generic-auth's extended validation) hands execution a rewritten copy of the
 * document on every request, which graphql-jit's caches, by object and by the parsed document's text,
 * never find: every request compiled its query again. This hands graphql-jit the first copy executed for
 * the same text instead. The plugins that rewrite do so alike for one text whoever sends it (a refused
 * field refuses the whole operation), so that copy is the same document.
 */
function useOneDocumentPerText(): Plugin {
  const firstByText = createDocumentCache<DocumentNode>();
  return {
    onExecute({ args, executeFn, setExecuteFn }) {
      const text = (args.contextValue as { params?: { query?: unknown } }).params?.query;
      // Only where graphql-jit runs: a document of several operations may run any one of them.
      if (typeof text !== 'string' || !singleOperation(args.document)) return;
      setExecuteFn((execution) => {
        let document = firstByText.get(text);
        if (document === undefined) firstByText.set(text, (document = execution.document));
        return executeFn({ ...execution, document });
      });
    },
  };
}

/** graphql-jit for single-operation documents; compiled once per document text. */
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
      // After graphql-jit: it wraps the executor graphql-jit set, so it sees the document graphql-jit will.
      addPlugin(useOneDocumentPerText());
    },
  };
}
