import { ERROR_KINDS } from '../../src/shared/errors/api-error.js';
import { toApiError } from '../../src/shared/errors/all-exceptions.filter.js';
import { DomainError, type ErrorKind } from '../../src/shared/errors/domain-error.js';

describe('domain errors become the contract answer in one place', () => {
  it.each(Object.keys(ERROR_KINDS) as ErrorKind[])('%s keeps its status and contract code', (kind) => {
    const answer = toApiError(new DomainError(kind, 'what to do next'));
    expect(answer.status).toBe(ERROR_KINDS[kind].status);
    expect(answer.body).toEqual({ error: ERROR_KINDS[kind].error, error_description: 'what to do next' });
    expect(answer.headers).toEqual({});
  });

  it('keeps the contract statuses of the domain refusals', () => {
    const statusOf = (kind: ErrorKind) => toApiError(new DomainError(kind, '')).status;
    expect(statusOf('novel_not_found')).toBe(404);
    expect(statusOf('subscriber_not_entitled')).toBe(403);
    expect(statusOf('ending_already_chosen')).toBe(409);
  });
});

describe('details a domain error carries', () => {
  it('become the response headers only at the HTTP edge', () => {
    const answer = toApiError(
      new DomainError('rate_limited', 'slow down', {
        retryAfterSeconds: 3,
        rateLimit: { policy: '"credential";q=100;w=2', remaining: '"credential";r=0;t=2' },
        challenge: 'Bearer realm="x"',
      }),
    );
    expect(answer.headers).toEqual({
      'Retry-After': '3',
      'RateLimit-Policy': '"credential";q=100;w=2',
      RateLimit: '"credential";r=0;t=2',
      'WWW-Authenticate': 'Bearer realm="x"',
    });
  });
});

describe('database failures', () => {
  it('answer a deadlock or serialisation failure with 503 and Retry-After: nothing was written, a retry succeeds', () => {
    for (const code of ['40P01', '40001']) {
      const answer = toApiError(Object.assign(new Error('deadlock detected'), { code }));
      expect([answer.status, answer.body.error, answer.headers['Retry-After']]).toEqual([503, 'temporarily_unavailable', '1']);
    }
    // A statement the server stopped at its timeout, or a server gone silent: nothing was written either.
    const cancelled = toApiError(Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' }));
    expect([cancelled.status, cancelled.body.error, cancelled.headers['Retry-After']]).toEqual([503, 'temporarily_unavailable', '5']);
    expect(toApiError(new Error('Query read timeout')).status).toBe(503);
    // Any other database error is still a bug of ours.
    expect(toApiError(Object.assign(new Error('syntax error'), { code: '42601' })).status).toBe(500);
  });
});
