import type { LoggerService } from '@nestjs/common';
import { pino, type DestinationStream, type Logger, type LoggerOptions } from 'pino';
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
  const options: LoggerOptions = {
    level,
    base: { service: 'partner-reading-listening-api' },
    timestamp: pino.stdTimeFunctions.isoTime,
    // "info", not 30: log pipelines and people read the name without pino's number table.
    formatters: { level: (label) => ({ level: label }) },
    redact: {
      paths: ['req.headers.authorization', 'req.headers.cookie', 'headers.authorization', '*.client_secret', '*.access_token', 'client_secret', 'access_token'],
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
  };
  return destination ? pino(options, destination) : pino(options);
}

/**
 * Nest's start-up chatter: one line per module and per route (over a hundred), which would
 * bury the start banner. Logged at debug.
 */
const START_UP_DETAIL = new Set(['NestFactory', 'InstanceLoader', 'RoutesResolver', 'RouterExplorer', 'NestApplication']);

/**
 * Nest's own log lines (start-up, errors) and every `new Logger(Context)` of the service,
 * through the same JSON logger, each with a `msg`. A Nest `Logger` passes its context last:
 * `logger.warn({ err }, 'text')` arrives as `warn({ err }, 'text', 'Context')`, and
 * `error(message, stack, context)` from Nest itself.
 */
export class NestJsonLogger implements LoggerService {
  constructor(private readonly logger: Logger) {}

  log(message: unknown, ...rest: unknown[]) {
    const context = contextOf(rest);
    this.write(context && START_UP_DETAIL.has(context) ? 'debug' : 'info', message, rest);
  }
  error(message: unknown, ...rest: unknown[]) {
    this.write('error', message, rest);
  }
  warn(message: unknown, ...rest: unknown[]) {
    this.write('warn', message, rest);
  }
  debug(message: unknown, ...rest: unknown[]) {
    this.write('debug', message, rest);
  }
  verbose(message: unknown, ...rest: unknown[]) {
    this.write('trace', message, rest);
  }

  private write(level: 'info' | 'error' | 'warn' | 'debug' | 'trace', message: unknown, rest: unknown[]) {
    const context = contextOf(rest);
    // What comes between the message and the context: a text (`warn({ err }, 'text')`) or,
    // from Nest, a stack.
    const between = rest.slice(0, context === undefined ? rest.length : -1);
    const text = between.find((part): part is string => typeof part === 'string');
    if (typeof message === 'object' && message !== null) {
      const fields = message as Record<string, unknown>;
      const msg = typeof fields.msg === 'string' ? fields.msg : (text ?? context ?? 'log');
      this.logger[level]({ context, ...fields, msg });
    } else {
      this.logger[level]({ context, ...(text !== undefined ? { detail: text } : {}) }, String(message));
    }
  }
}

/** The context Nest passes last, when the last parameter is a string. */
const contextOf = (rest: unknown[]) => (rest.length > 0 && typeof rest.at(-1) === 'string' ? (rest.at(-1) as string) : undefined);
