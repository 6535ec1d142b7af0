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
