import type { LoggerService } from '@nestjs/common';
import { pino, type DestinationStream, type Logger } from 'pino';
import type { SubscriberLogIds } from '../shared/crypto/subscriber-log-ids.js';
import { subscriberIdsHashed, type LoggedRequest } from './subscriber-log-redaction.js';

/** Query parameters whose value is a secret, lowercase; compared with each name decoded. */
const SECRET_QUERY_PARAMETERS = new Set(['client_secret', 'access_token', 'token', 'signature', 'sig', 'x-amz-signature', 'x-amz-credential']);

/**
 * The URL with the value of every secret query parameter replaced. Names are compared
 * after percent-decoding, as the query parser reads them: `client%5Fsecret` is `client_secret`.
 */
export function redactUrl(url: string): string {
  const start = url.indexOf('?');
  if (start < 0) return url;
  const pairs = url
    .slice(start + 1)
    .split('&')
    .map((pair) => {
      const name = pair.split('=', 1)[0];
      return SECRET_QUERY_PARAMETERS.has(percentDecoded(name).toLowerCase()) ? `${name}=[REDACTED]` : pair;
    });
  return `${url.slice(0, start + 1)}${pairs.join('&')}`;
}

/** Decodes each %XX on its own, so a malformed sequence elsewhere cannot hide a name. */
const percentDecoded = (text: string) => text.replace(/\+/g, ' ').replace(/%([0-9a-f]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));

/**
 * Structured JSON logs. Authorization headers, cookies and secret query values are
 * redacted, subscriber ids in URLs hashed (ADR 0141); request bodies are never logged.
 */
export function createRootLogger(level: string, subscriberLogIds: SubscriberLogIds, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: 'partner-reading-listening-api' },
      timestamp: pino.stdTimeFunctions.isoTime,
      // "info", not 30: log pipelines and people read the name without pino's number table.
      formatters: { level: (label) => ({ level: label }) },
      redact: {
        paths: [
          'req.headers.authorization',
          'req.headers.cookie',
          'headers.authorization',
          '*.client_secret',
          '*.access_token',
          'client_secret',
          'access_token',
        ],
        censor: '[REDACTED]',
      },
      serializers: {
        req: (req: LoggedRequest & { id?: unknown; method?: string; ip?: string }) => ({
          id: req.id,
          method: req.method,
          url: redactUrl(subscriberIdsHashed(req, subscriberLogIds)),
          remoteAddress: req.ip,
        }),
        res: (res: { statusCode?: number }) => ({ statusCode: res.statusCode }),
      },
    },
    destination,
  );
}

/**
 * Nest's start-up chatter: one line per module and per route (over a hundred), which would
 * bury the start banner. Logged at debug.
 */
const START_UP_DETAIL = new Set(['NestFactory', 'InstanceLoader', 'RoutesResolver', 'RouterExplorer', 'NestApplication']);

/** Nest's own log lines (start-up, errors) through the same JSON logger. */
export class NestJsonLogger implements LoggerService {
  constructor(private readonly logger: Logger) {}

  log(message: unknown, context?: string) {
    this.write(context && START_UP_DETAIL.has(context) ? 'debug' : 'info', message, context);
  }
  /** Nest calls error(message, stack?, context?): the context comes last when given. */
  error(message: unknown, ...rest: unknown[]) {
    const context = rest.length > 0 && typeof rest.at(-1) === 'string' ? (rest.at(-1) as string) : undefined;
    const detail = rest.length > 1 ? rest[0] : undefined;
    this.write('error', message, context, detail);
  }
  warn(message: unknown, context?: string) {
    this.write('warn', message, context);
  }
  debug(message: unknown, context?: string) {
    this.write('debug', message, context);
  }
  verbose(message: unknown, context?: string) {
    this.write('trace', message, context);
  }

  private write(level: 'info' | 'error' | 'warn' | 'debug' | 'trace', message: unknown, context?: string, detail?: unknown) {
    if (typeof message === 'object' && message !== null) {
      this.logger[level]({ context, ...message }, typeof detail === 'string' ? detail : undefined);
    } else {
      this.logger[level]({ context, ...(detail !== undefined ? { detail } : {}) }, String(message));
    }
  }
}
