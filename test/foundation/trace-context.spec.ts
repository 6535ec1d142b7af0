import { parseTraceparent } from '../../src/observability/trace-context.js';

describe('traceparent (W3C Trace Context)', () => {
  it('reads the trace id and parent id of a valid header', () => {
    expect(parseTraceparent('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01')).toEqual({
      traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
      parentId: '00f067aa0ba902b7',
    });
    // A later version may add fields after the flags.
    expect(parseTraceparent('01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra')?.traceId).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
  });

  it.each([
    undefined,
    '',
    'garbage',
    '00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01',
    '00-00000000000000000000000000000000-00f067aa0ba902b7-01',
    '00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01',
    'ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
    '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra',
  ])('ignores %j', (header) => {
    expect(parseTraceparent(header)).toBeUndefined();
  });
});
