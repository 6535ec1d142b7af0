import fc from 'fast-check';
import { checkEndpointUrl, nonPublicReason, refusedAddresses, urlRulesFor, type UrlRules } from '../../src/modules/webhooks/domain/endpoint-url-policy.js';

const refusal = (url: string, rules: UrlRules = 'public') => {
  const check = checkEndpointUrl(url, rules);
  return check.ok ? null : check.reason;
};

describe('which rules apply', () => {
  it('holds live endpoints to the public rules, whatever NODE_ENV, unless WEBHOOK_ALLOW_INSECURE_URLS', () => {
    expect(urlRulesFor('live', false, false)).toBe('public');
    expect(urlRulesFor('live', false, true)).toBe('public');
    expect(urlRulesFor('sandbox', false, false)).toBe('sandbox');
    expect(urlRulesFor('live', true, true)).toBe('unrestricted');
    expect(urlRulesFor('sandbox', true, false)).toBe('unrestricted');
  });

  it('holds sandbox endpoints in production to public addresses, on any port and over http too', () => {
    expect(urlRulesFor('sandbox', false, true)).toBe('sandbox-public');
    expect(refusal('http://127.0.0.1:15000/quitquitquit', 'sandbox-public')).toMatch(/127.0.0.1 is a loopback address/);
    expect(refusal('http://localhost:8080/hook', 'sandbox-public')).toMatch(/localhost/);
    expect(refusal('http://[::1]:9000/hook', 'sandbox-public')).toMatch(/loopback/);
    expect(refusal('http://93.184.215.14:8080/hook', 'sandbox-public')).toBeNull();
    expect(refusedAddresses('local.example', ['127.0.0.1'], 'sandbox-public')).toMatch(/loopback/);
  });
});

describe('endpoint URL policy for live endpoints', () => {
  it.each([
    ['http://example.com/hook', /https/],
    ['ftp://example.com/hook', /https/],
    ['not a url', /absolute URL/],
    ['/relative/path', /absolute URL/],
    ['https://user:pass@example.com/hook', /user name or password/],
    ['https://example.com/hook#part', /fragment/],
    ['https://localhost/hook', /localhost/],
    ['https://LOCALHOST./hook', /localhost/],
    ['https://api.localhost/hook', /localhost/],
    ['https://127.0.0.1/hook', /loopback/],
    ['https://0x7f.1/hook', /loopback/],
    ['https://2130706433/hook', /loopback/],
    ['https://10.0.0.1/hook', /private/],
    ['https://172.16.5.4/hook', /private/],
    ['https://192.168.1.1/hook', /private/],
    ['https://169.254.169.254/latest/meta-data', /link-local/],
    ['https://100.64.0.1/hook', /carrier-grade NAT/],
    ['https://0.0.0.0/hook', /unspecified/],
    ['https://224.0.0.1/hook', /multicast/],
    ['https://255.255.255.255/hook', /reserved/],
    ['https://[::1]/hook', /loopback/],
    ['https://[::]/hook', /unspecified/],
    ['https://[fe80::1]/hook', /link-local/],
    ['https://[fd00::1]/hook', /unique-local/],
    ['https://[ff02::1]/hook', /multicast/],
    ['https://[::ffff:10.0.0.1]/hook', /private.*IPv6/],
    ['https://[::ffff:127.0.0.1]/hook', /loopback.*IPv6/],
    ['https://[64:ff9b::a9fe:a9fe]/hook', /link-local.*IPv6/],
    ['https://[2002:c0a8:0101::1]/hook', /private.*IPv6/],
    ['https://[2001:db8::1]/hook', /documentation/],
    ['https://example.com:22/hook', /port 443 or 8443/],
    ['https://example.com:6379/hook', /port 443 or 8443/],
    ['https://example.com:80/hook', /port 443 or 8443/],
  ])('refuses %s', (url, reason) => {
    expect(refusal(url)).toMatch(reason);
  });

  it.each([
    'https://example.com/hook',
    'https://partner.example.com:8443/webhooks?source=reading',
    'https://93.184.215.14/hook',
    'https://[2606:4700:4700::1111]/hook',
    'https://[::ffff:8.8.8.8]/hook',
    'https://example.com:443/hook',
  ])('accepts %s', (url) => {
    expect(refusal(url)).toBeNull();
  });
});

describe('endpoint URL policy for sandbox endpoints', () => {
  it.each(['http://127.0.0.1:4000/hook', 'http://localhost:3001/hook', 'http://[::1]:8080/', 'https://example.com:9999/hook', 'http://93.184.215.14/hook'])(
    'accepts %s',
    (url) => {
      expect(refusal(url, 'sandbox')).toBeNull();
    },
  );

  it.each([
    ['http://10.0.0.1/hook', /private/],
    ['http://169.254.169.254/latest/meta-data', /link-local/],
    ['http://[fd00::1]:8080/', /unique-local/],
    ['ftp://127.0.0.1/', /http or https/],
  ])('refuses %s', (url, reason) => {
    expect(refusal(url, 'sandbox')).toMatch(reason);
  });

  it('lets a host resolve to loopback, never to a private address', () => {
    expect(refusedAddresses('localhost', ['127.0.0.1', '::1'], 'sandbox')).toBeNull();
    expect(refusedAddresses('intranet.example', ['127.0.0.1', '10.0.0.7'], 'sandbox')).toBe('intranet.example resolves to 10.0.0.7, a private address');
  });
});

describe('endpoint URL policy with WEBHOOK_ALLOW_INSECURE_URLS', () => {
  it.each(['http://127.0.0.1:4000/hook', 'http://localhost/hook', 'https://10.0.0.1/hook', 'http://[::1]:8080/'])('accepts %s', (url) => {
    expect(refusal(url, 'unrestricted')).toBeNull();
  });

  it('still refuses other schemes and credentials', () => {
    expect(refusal('ftp://127.0.0.1/', 'unrestricted')).toMatch(/http or https/);
    expect(refusal('http://a:b@127.0.0.1/', 'unrestricted')).toMatch(/user name/);
  });
});

describe('resolved addresses', () => {
  it('refuses a host when any of its addresses is not public', () => {
    expect(refusedAddresses('rebind.example', ['93.184.215.14', '10.1.2.3'], 'public')).toBe('rebind.example resolves to 10.1.2.3, a private address');
    expect(refusedAddresses('loop.example', ['127.0.0.1'], 'public')).toBe('loop.example resolves to 127.0.0.1, a loopback address');
    expect(refusedAddresses('none.example', [], 'public')).toMatch(/does not resolve/);
    expect(refusedAddresses('ok.example', ['93.184.215.14', '2606:4700:4700::1111'], 'public')).toBeNull();
  });

  it('ignores an interface zone on a link-local address', () => {
    expect(nonPublicReason('fe80::1%eth0')).toMatch(/link-local/);
  });

  const ipv4 = fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255)).map((octets) => octets.join('.'));

  it('classifies an IPv4-mapped IPv6 address as its IPv4 address', () => {
    fc.assert(
      fc.property(ipv4, (address) => {
        const mapped = nonPublicReason(`::ffff:${address}`);
        const plain = nonPublicReason(address);
        expect(mapped === null).toBe(plain === null);
      }),
    );
  });

  it('refuses every address of the private blocks', () => {
    fc.assert(
      fc.property(fc.nat(255), fc.nat(255), fc.nat(255), (b, c, d) => {
        expect(nonPublicReason(`10.${b}.${c}.${d}`)).toBe('a private address');
        expect(nonPublicReason(`192.168.${c}.${d}`)).toBe('a private address');
        expect(nonPublicReason(`172.${16 + (b % 16)}.${c}.${d}`)).toBe('a private address');
        expect(nonPublicReason(`127.${b}.${c}.${d}`)).toBe('a loopback address');
      }),
    );
  });

  it('leaves the neighbours of the private blocks public', () => {
    for (const address of ['9.255.255.255', '11.0.0.0', '172.15.255.255', '172.32.0.0', '192.167.255.255', '192.169.0.0', '100.63.255.255', '100.128.0.0']) {
      expect(nonPublicReason(address)).toBeNull();
    }
  });
});
