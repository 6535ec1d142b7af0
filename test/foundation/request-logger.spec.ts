import { jest } from '@jest/globals';
import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';
import { DeferredRequestLogger, requestLogger } from '../../src/observability/request-logger.js';

/**
 * A request's logger writes what a pino child of the root logger writes, carrying the
 * request's bindings, and makes that child only when a line is written at an enabled level.
 */
function rootLogger(level: string): { root: Logger; lines: () => Record<string, unknown>[] } {
  const written: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      written.push(chunk.toString());
      done();
    },
  });
  const root = pino({ level, base: undefined, timestamp: false }, sink);
  return {
    root,
    lines: () =>
      written
        .join('')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}

const BINDINGS = { reqId: 'req-1', trace_id: '4bf92f3577b34da6a3ce929d0e0e4736' };

test('below the enabled level it writes nothing and makes no child', () => {
  const { root, lines } = rootLogger('warn');
  const made = jest.spyOn(root, 'child');
  const logger = new DeferredRequestLogger(root, BINDINGS);
  logger.info({ res: { statusCode: 200 } }, 'request completed');
  logger.debug('detail');
  expect(logger.isLevelEnabled('info')).toBe(false);
  expect(logger.level).toBe('warn');
  expect(made).not.toHaveBeenCalled();
  expect(lines()).toEqual([]);
});

test('at an enabled level it writes the line a child of the root would, with the bindings', () => {
  const { root, lines } = rootLogger('warn');
  const logger = new DeferredRequestLogger(root, BINDINGS);
  logger.error({ err: new Error('boom'), responseTime: 3 }, 'request errored');
  logger.warn('plain message %s', 'formatted');
  logger.fatal({ only: 'object' });
  const expected = rootLogger('warn');
  const child = expected.root.child(BINDINGS);
  child.error({ err: new Error('boom'), responseTime: 3 }, 'request errored');
  child.warn('plain message %s', 'formatted');
  child.fatal({ only: 'object' });
  const withoutStacks = (entries: Record<string, unknown>[]) =>
    entries.map(({ err, ...rest }) => ({ ...rest, err: err && { ...(err as object), stack: undefined } }));
  expect(withoutStacks(lines())).toEqual(withoutStacks(expected.lines()));
  expect(lines()[0]).toMatchObject({ level: 50, msg: 'request errored', reqId: 'req-1', trace_id: BINDINGS.trace_id, responseTime: 3 });
  expect(lines()[1]).toMatchObject({ msg: 'plain message formatted', reqId: 'req-1' });
  expect(lines()[2]).not.toHaveProperty('msg');
});

test('one child at most, and children of it carry both sets of bindings', () => {
  const { root, lines } = rootLogger('info');
  const made = jest.spyOn(root, 'child');
  const logger = new DeferredRequestLogger(root, BINDINGS);
  logger.info('one');
  logger.info('two');
  expect(made).toHaveBeenCalledTimes(1);
  logger.child({ job: 'x' }).info('three');
  expect(lines().map((line) => [line.msg, line.reqId, line.job])).toEqual([
    ['one', 'req-1', undefined],
    ['two', 'req-1', undefined],
    ['three', 'req-1', 'x'],
  ]);
});

test('a level set on the request logger applies to it alone', () => {
  const { root, lines } = rootLogger('warn');
  const logger = new DeferredRequestLogger(root, BINDINGS);
  logger.level = 'debug';
  logger.debug('now written');
  expect(root.level).toBe('warn');
  expect(lines()).toEqual([expect.objectContaining({ msg: 'now written', reqId: 'req-1' })]);
});

test('a route with its own level or serializers gets a child made at once, honouring them', () => {
  const { root, lines } = rootLogger('warn');
  const logger = requestLogger(root, BINDINGS, { level: 'debug' });
  expect(logger).not.toBeInstanceOf(DeferredRequestLogger);
  logger.debug('route detail');
  expect(lines()).toEqual([expect.objectContaining({ msg: 'route detail', reqId: 'req-1' })]);
  expect(requestLogger(root, BINDINGS, {})).toBeInstanceOf(DeferredRequestLogger);
});
