import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../../src/config/app-config.js';

const withEnv = (env: Record<string, string>) => loadConfig({ DATA_DIR: mkdtempSync(join(tmpdir(), 'prl-config-')), ...env });

describe('TRUST_PROXY and the request budgets', () => {
  it('trusts no proxy by default, with the documented budgets', () => {
    expect(withEnv({})).toMatchObject({ trustProxy: false, tokenFailuresPerMinute: 10, unauthenticatedRps: 20, unauthenticatedBurst: 100 });
  });

  it.each([
    ['false', false],
    // `true` is the proxies' own networks, never "every hop" (which reads the client's entry).
    ['true', ['loopback', 'linklocal', 'uniquelocal']],
    ['2', 2],
    ['10.0.0.0/8, 192.168.1.7', ['10.0.0.0/8', '192.168.1.7']],
    ['loopback,fd00::/8,::1', ['loopback', 'fd00::/8', '::1']],
  ])('reads %s', (value, expected) => {
    expect(withEnv({ TRUST_PROXY: value }).trustProxy).toEqual(expected);
  });

  it.each(['yes', '10.0.0.0/33', '10.0.0.300', 'fd00::/129', '0', '10.0.0.0/8,'])('refuses %s, naming the variable', (value) => {
    expect(() => withEnv({ TRUST_PROXY: value })).toThrow(ConfigError);
    expect(() => withEnv({ TRUST_PROXY: value })).toThrow(/TRUST_PROXY/);
  });

  it('refuses true in production, where the operator names its proxies', () => {
    const production = { NODE_ENV: 'production', SERVER_SECRET: 'Zx8Qm2vL0aR7tK4pW9cE1yH6uJ3nB5dF', PUBLIC_BASE_URL: 'https://api.example.com' };
    expect(() => withEnv({ ...production, TRUST_PROXY: 'true' })).toThrow(/TRUST_PROXY=true is refused when NODE_ENV=production/);
    expect(withEnv({ ...production, TRUST_PROXY: '10.0.0.0/8' }).trustProxy).toEqual(['10.0.0.0/8']);
  });
});
