import { rateLimitFields, secondsUntilToken } from '../../src/modules/rate-limiting/domain/ratelimit-fields.js';

const credential = { name: 'credential', ratePerSecond: 50, burst: 100 };

test('a token bucket as IETF RateLimit fields: quota = burst, window = seconds of a full refill', () => {
  expect(rateLimitFields(credential, 100)).toEqual({ 'RateLimit-Policy': '"credential";q=100;w=2', RateLimit: '"credential";r=100;t=0' });
  expect(rateLimitFields(credential, 37.6)).toEqual({ 'RateLimit-Policy': '"credential";q=100;w=2', RateLimit: '"credential";r=37;t=2' });
  expect(rateLimitFields({ name: 'token-failures', ratePerSecond: 10 / 60, burst: 10 }, 0)).toEqual({
    'RateLimit-Policy': '"token-failures";q=10;w=60',
    RateLimit: '"token-failures";r=0;t=60',
  });
});

test('never a negative remainder, and at least a second before the next token', () => {
  expect(rateLimitFields(credential, -3).RateLimit).toBe('"credential";r=0;t=2');
  expect(secondsUntilToken(credential, 0.99)).toBe(1);
  expect(secondsUntilToken({ name: 'slow', ratePerSecond: 0.1, burst: 5 }, 0)).toBe(10);
});
