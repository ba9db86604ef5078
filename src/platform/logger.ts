import { pino, type Logger as PinoLogger, type DestinationStream, type LoggerOptions } from 'pino';
import { requestContext } from './request-context.ts';

export type Logger = PinoLogger;

/** Censored wherever a caller passes them in by mistake: secrets never reach a log line. */
export const REDACTED_PATHS = [
  'password',
  '*.password',
  'token',
  '*.token',
  'secret',
  '*.secret',
  'authorization',
  '*.authorization',
  'headers.authorization',
  'req.headers.authorization',
  'req.headers.cookie',
  // A database error's bound values and failing row are data, customer text included (PGlite attaches
  // the parameters); the code, constraint and message say what went wrong.
  'err.params',
  'err.detail',
  'err.cause.params',
  'err.cause.detail',
];

const withRequestId = () => {
  const store = requestContext.getStore();
  return store ? { reqId: store.reqId } : {};
};

export function createLogger(
  level: string,
  destination?: DestinationStream,
  options: { pretty?: boolean } = {},
): Logger {
  const settings: LoggerOptions = {
    level,
    base: undefined,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    timestamp: pino.stdTimeFunctions.isoTime,
    mixin: withRequestId,
  };
  if (options.pretty && !destination) {
    // Development on a terminal only; pino-pretty is an optional dependency.
    return pino({
      ...settings,
      transport: { target: 'pino-pretty', options: { colorize: true, translateTime: 'SYS:HH:MM:ss.l' } },
    });
  }
  return pino(settings, destination);
}
