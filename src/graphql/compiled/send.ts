import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ExecutionResult, GraphQLError, Source } from 'graphql';
import { processRegularResult, type FetchAPI } from 'graphql-yoga';
import { AnswerTooLarge } from '../../platform/errors.ts';
import type { Logger } from '../../platform/logger.ts';
import { MASKED_ERROR_MESSAGE, maskError, validationError } from '../errors.ts';
import { withSourcePositions } from '../plugins/use-jit-error-locations.ts';
import { etagMatches } from '../response-cache/index.ts';
import { logYogaErrors } from '../yoga.ts';

const fetchAPI = { Response } as unknown as FetchAPI;

/** An answer without errors, its validators beside it when the cache keeps it (a 304 if the caller holds those bytes). */
export function sendData(
  json: string,
  mediaType: string,
  validators: Record<string, string> | undefined,
  req: IncomingMessage,
  res: ServerResponse,
): void {
  // As through Yoga: a 304 for the bytes just computed, whoever else asked before.
  if (validators && etagMatches(req.headers['if-none-match'], validators['ETag']!)) {
    res.writeHead(304, validators);
    res.end();
    return;
  }
  res.writeHead(200, {
    'content-type': `${mediaType}; charset=utf-8`,
    'content-length': Buffer.byteLength(json),
    ...validators,
  });
  res.end(json);
}

/**
 * A result with errors as Yoga sends it: located in the document, masked and logged as Yoga's options do,
 * an answer over its size bound refused whole (use-execution-limits.ts), its status from the errors.
 * Rare: Yoga's own result processor writes it.
 */
export async function sendErrors(
  result: ExecutionResult,
  source: Source | undefined,
  mediaType: string,
  res: ServerResponse,
  logger: Logger,
): Promise<void> {
  const all = result.errors ?? [];
  const tooLarge = all.map((e) => e.originalError).find((e) => e instanceof AnswerTooLarge);
  const errors: GraphQLError[] = tooLarge
    ? [validationError(tooLarge.message)]
    : all.map((error) => {
        const located = source ? withSourcePositions(error, source) : error;
        const masked = maskError(located, MASKED_ERROR_MESSAGE, false);
        if (masked !== located) logYogaErrors(logger, [located]);
        return masked as GraphQLError;
      });
  const response = processRegularResult(tooLarge ? { errors } : { ...result, errors }, fetchAPI, mediaType);
  const body = await response.text();
  res.writeHead(response.status, {
    ...Object.fromEntries(response.headers),
    'content-length': Buffer.byteLength(body),
  });
  res.end(body);
}
