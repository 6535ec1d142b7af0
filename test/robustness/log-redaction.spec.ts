import { redactUrl } from '../../src/observability/logger.js';

describe('secret query parameters in logged URLs', () => {
  it.each([
    ['/platform/v1/oauth2/token?client_secret=s3cret', '/platform/v1/oauth2/token?client_secret=[REDACTED]'],
    ['/platform/v1/oauth2/token?client%5Fsecret=s3cret', '/platform/v1/oauth2/token?client%5Fsecret=[REDACTED]'],
    ['/x?a=1&%63lient_secret=s3cret&b=2', '/x?a=1&%63lient_secret=[REDACTED]&b=2'],
    ['/x?ACCESS%5FTOKEN=s3cret', '/x?ACCESS%5FTOKEN=[REDACTED]'],
    ['/media/k.mp3?expires=1&signature=s3cret', '/media/k.mp3?expires=1&signature=[REDACTED]'],
    ['/x?%ZZ=1&token=s3cret', '/x?%ZZ=1&token=[REDACTED]'],
  ])('%s is logged as %s', (url, logged) => {
    expect(redactUrl(url)).toBe(logged);
  });

  it('leaves other parameters and URLs without a query alone', () => {
    expect(redactUrl('/v1/novels?limit=5&cursor=abc')).toBe('/v1/novels?limit=5&cursor=abc');
    expect(redactUrl('/v1/novels')).toBe('/v1/novels');
  });
});
