import type { FastifyBaseLogger } from 'fastify';
import type { Bindings, ChildLoggerOptions, Level, LevelWithSilentOrString, Logger } from 'pino';

/**
 * A request's logger that becomes a pino child of the root logger the first time the request
 * writes a line at an enabled level (ADR 0123). Making a child serialises its bindings through
 * the redaction there and then, which the bench profile showed on every request, while at warn
 * (the bench's level, and a deployment's that keeps only problems) most requests write no line.
 */
export class DeferredRequestLogger implements FastifyBaseLogger {
  private made: Logger | undefined;

  constructor(
    private readonly root: Logger,
    private readonly bindings: Bindings,
  ) {}

  get level(): LevelWithSilentOrString {
    return (this.made ?? this.root).level;
  }

  set level(level: LevelWithSilentOrString) {
    this.logger().level = level;
  }

  isLevelEnabled(level: LevelWithSilentOrString): boolean {
    return (this.made ?? this.root).isLevelEnabled(level);
  }

  fatal(obj: unknown, msg?: string, ...args: unknown[]): void {
    this.write('fatal', obj, msg, args);
  }

  error(obj: unknown, msg?: string, ...args: unknown[]): void {
    this.write('error', obj, msg, args);
  }

  warn(obj: unknown, msg?: string, ...args: unknown[]): void {
    this.write('warn', obj, msg, args);
  }

  info(obj: unknown, msg?: string, ...args: unknown[]): void {
    this.write('info', obj, msg, args);
  }

  debug(obj: unknown, msg?: string, ...args: unknown[]): void {
    this.write('debug', obj, msg, args);
  }

  trace(obj: unknown, msg?: string, ...args: unknown[]): void {
    this.write('trace', obj, msg, args);
  }

  silent(): void {}

  child(bindings: Bindings, options?: ChildLoggerOptions): Logger {
    return this.logger().child(bindings, options);
  }

  private write(level: Level, obj: unknown, msg: string | undefined, args: unknown[]): void {
    if (!this.isLevelEnabled(level)) return;
    const logger = this.logger();
    // pino counts its arguments: a message left out must not become an undefined one.
    if (msg === undefined && args.length === 0) logger[level](obj);
    else logger[level](obj, msg, ...args);
  }

  private logger(): Logger {
    return (this.made ??= this.root.child(this.bindings));
  }
}

/**
 * Fastify's request logger factory: deferred, unless a route sets its own level or
 * serializers (none does today), which only a child made at once would apply.
 */
export function requestLogger(root: Logger, bindings: Bindings, options: ChildLoggerOptions): FastifyBaseLogger {
  return Object.keys(options).length > 0 ? root.child(bindings, options) : new DeferredRequestLogger(root, bindings);
}
