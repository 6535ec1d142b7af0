import { repeatedWriteStatementLimit, TARGETS } from '../../bench/load/report.js';

/**
 * Issue 37's statement target for a write that repeats another with one more feature (the keyed
 * PUT): one statement more per request, the plain write's per-second extra spread over the
 * slower write's requests.
 */
test("the plain write's extra statements are per second: spread over the repeated write's requests", () => {
  // The 14:26 sitting: 1.007 at 1 163 req/s is 8.1 extra statements a second; at 709 req/s
  // they are 0.0115 a request, so 2.018 is within the slack, where `plain + 1` (2.007) was not.
  const limit = repeatedWriteStatementLimit({ statementsPerRequest: 1.007, requestsPerSecond: 1163 }, { requestsPerSecond: 709 });
  expect(limit).toBeCloseTo(2.0115, 4);
  expect(2.018 <= limit + TARGETS.statementCountSlack).toBe(true);
  // One more statement per request is still caught, at any throughput.
  expect(3.0 <= limit + TARGETS.statementCountSlack).toBe(false);
  // At equal throughputs it is plain + 1; a plain write at or under its limit leaves exactly 2.
  expect(repeatedWriteStatementLimit({ statementsPerRequest: 1.004, requestsPerSecond: 2000 }, { requestsPerSecond: 2000 })).toBeCloseTo(2.004, 6);
  expect(repeatedWriteStatementLimit({ statementsPerRequest: 0.999, requestsPerSecond: 2000 }, { requestsPerSecond: 500 })).toBe(2);
  expect(repeatedWriteStatementLimit({ statementsPerRequest: null, requestsPerSecond: 2000 }, { requestsPerSecond: 0 })).toBe(2);
});
