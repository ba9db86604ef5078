// The shared response cache: one entry point for the app, the endpoint and Yoga.
export { createResponseCache, followChanges, type ResponseCache, type ResponseCacheOptions } from './cache.ts';
export { cacheSessionOf, etagMatches, responseCacheKey } from './key.ts';
export { createStoredAnswers, sendStoredAnswer, type StoredAnswers } from './serve.ts';
export { createShareability, sharedFields } from './shareable.ts';
export { entryOf, useResponseCache } from './use-response-cache.ts';
export type { Entry } from './store.ts';
