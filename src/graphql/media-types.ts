import type { IncomingMessage } from 'node:http';
import type { Plugin } from 'graphql-yoga';

const REGULAR = new Set(['application/json', 'application/graphql-response+json']);

/**
 * The media type Yoga chose when it last answered an Accept header with a regular JSON result, for the
 * answers sent without Yoga (stored answers, compiled trusted documents): nothing there negotiates, and an
 * Accept Yoga has not answered yet goes to Yoga. Clients send a handful of Accept headers, each on every request.
 */
export function createAnswerMediaTypes() {
  const types = new Map<string, string>();
  return {
    /** The media type to answer this POST of JSON with, if Yoga has answered its Accept; else undefined. */
    forJsonPost(req: IncomingMessage): string | undefined {
      const { headers } = req;
      if (
        req.method !== 'POST' ||
        headers['content-length'] === undefined ||
        (headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase() !== 'application/json'
      ) {
        return undefined;
      }
      return types.get(headers.accept ?? '');
    },
    /** Notes the media type Yoga answered a request's Accept with, for a regular JSON result. */
    learnFrom(request: Request, response: Response): void {
      if (request.method !== 'POST' || response.status !== 200 || types.size >= 100) return;
      // Learnt once per Accept: Yoga answers the same Accept with the same type every time.
      const accept = request.headers.get('accept') ?? '';
      if (types.has(accept)) return;
      const type = (response.headers.get('content-type') ?? '').split(';')[0]!.trim();
      if (REGULAR.has(type)) types.set(accept, type);
    },
  };
}

export type AnswerMediaTypes = ReturnType<typeof createAnswerMediaTypes>;

/** Teaches `types` from Yoga's answers. */
export const useAnswerMediaTypes = (types: AnswerMediaTypes): Plugin => ({
  onResponse({ request, response }) {
    types.learnFrom(request, response);
  },
});
