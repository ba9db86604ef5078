import type { Plugin } from 'graphql-yoga';

// Marks a result's data as already clean for @envelop/response-cache, whose walk over it returns at
// once for an object with a prototype of its own. JSON output is unchanged.
const CLEAN = Object.freeze(Object.create(null));

/**
 * The response cache plugin rewrites every query to select `__typename` and `id` everywhere, then walks
 * the result to strip them and collect entities: an entity-invalidation feature this cache does not use
 * (every change empties it), at a cost that doubles with each nested list (9.3.1 walks arrays twice).
 * This runs the document as the client sent it instead, and hands back data the walk skips. Which fields
 * may be shared is still decided on the rewritten document, by schema coordinate, before execution.
 */
export function useOriginalDocument(): Plugin {
  return {
    onExecute({ args, executeFn, setExecuteFn }) {
      const document = args.document;
      setExecuteFn((rewritten) => {
        const done = <R>(result: R): R => {
          if (
            result &&
            typeof result === 'object' &&
            'data' in result &&
            result.data &&
            typeof result.data === 'object'
          ) {
            result.data = Object.setPrototypeOf({ ...result.data }, CLEAN);
          }
          return result;
        };
        const result = executeFn({ ...rewritten, document });
        return result instanceof Promise ? result.then(done) : done(result);
      });
    },
  };
}
