import type { Plugin } from 'graphql-yoga';
import { bodyTooLargeError } from '../errors.ts';

/**
 * Yoga's maxRequestBodySize for chunked bodies only, without its per-request stream pipeline: the dispatcher
 * refuses a declared Content-Length over the limit, and Node's parser never passes more than was declared.
 */
export function useUndeclaredBodyLimit(limit: number): Plugin {
  return {
    onRequestParse({ request, requestParser, setRequestParser, fetchAPI }) {
      if (!requestParser || request.method === 'GET' || request.method === 'HEAD') return;
      if (request.headers.has('content-length') || !request.body) return;
      let bytesRead = 0;
      const limited = request.body.pipeThrough(
        new fetchAPI.TransformStream<Uint8Array, Uint8Array>({
          transform(chunk, controller) {
            bytesRead += chunk.byteLength;
            if (bytesRead > limit) controller.error(bodyTooLargeError());
            else controller.enqueue(chunk);
          },
        }),
      );
      setRequestParser(() =>
        requestParser(
          new fetchAPI.Request(request.url, {
            method: request.method,
            headers: request.headers,
            signal: request.signal,
            body: limited,
            duplex: 'half',
          } as RequestInit),
        ),
      );
    },
  };
}
