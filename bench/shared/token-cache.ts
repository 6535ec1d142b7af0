import { generateKeyPairSync, sign, verify } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { BenchCredential } from './seed.js';
import type { RunningServer } from './servers.js';
import { round } from './round.js';

/**
 * "A repeat token costs no signature verification", measured: the service's main-thread
 * CPU per request for tokens it has never seen, then for the same tokens again, on an
 * endpoint that reads no table (GET /v1/voices). The difference is what a first use costs
 * more; it should be about one ES256 verification, measured here with node:crypto too.
 */
export interface TokenCacheCheck {
  tokens: number;
  firstUseUsPerRequest: number;
  repeatUsPerRequest: number;
  /** One ES256 verification in this process, for scale. */
  es256VerifyUs: number;
  /** Whether a repeat saves at least half a verification (so it does not verify again). */
  met: boolean;
}

const CONCURRENCY = 8;

export async function checkTokenCache(service: RunningServer, credentials: readonly BenchCredential[], count: number): Promise<TokenCacheCheck> {
  const mint = async (n: number) => {
    const tokens: string[] = [];
    for (let i = 0; i < n; i += CONCURRENCY) {
      const batch = Array.from({ length: Math.min(CONCURRENCY, n - i) }, (_, k) => credentials[(i + k) % credentials.length]);
      tokens.push(...(await Promise.all(batch.map((credential) => issueToken(service.baseUrl, credential)))));
    }
    return tokens;
  };
  // A first round warms the verification path up (JIT), so the measured first uses are not cold code.
  const warmUp = await mint(Math.min(500, count));
  await cpuPerRequest(service, warmUp);
  const tokens = await mint(count);
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const firstUse = await cpuPerRequest(service, tokens);
  const repeat = await cpuPerRequest(service, tokens);
  const es256VerifyUs = measureVerify();
  return {
    tokens: count,
    firstUseUsPerRequest: round(firstUse, 1),
    repeatUsPerRequest: round(repeat, 1),
    es256VerifyUs: round(es256VerifyUs, 1),
    met: firstUse - repeat >= es256VerifyUs / 2,
  };
}

/** One access token from the service's token endpoint (client_secret_basic). */
export async function issueToken(baseUrl: string, credential: BenchCredential): Promise<string> {
  const response = await fetch(`${baseUrl}/platform/v1/oauth2/token`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${credential.clientId}:${credential.clientSecret}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: 'grant_type=client_credentials',
  });
  if (!response.ok) throw new Error(`token request failed: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { access_token: string }).access_token;
}

/** Fresh tokens (they live 600 s): perCredential per credential, all distinct. */
export async function issueTokens(baseUrl: string, credentials: readonly BenchCredential[], perCredential: number): Promise<string[]> {
  const tokens: string[] = [];
  for (let round = 0; round < perCredential; round++) {
    tokens.push(...(await Promise.all(credentials.map((credential) => issueToken(baseUrl, credential)))));
  }
  return tokens;
}

/** Main-thread CPU of the server per request, each token used once, CONCURRENCY at a time. */
async function cpuPerRequest(service: RunningServer, tokens: readonly string[]): Promise<number> {
  const before = mainThreadCpuNs(service.pid);
  for (let i = 0; i < tokens.length; i += CONCURRENCY) {
    await Promise.all(
      tokens.slice(i, i + CONCURRENCY).map(async (token) => {
        const response = await fetch(`${service.baseUrl}/v1/voices`, { headers: { authorization: `Bearer ${token}` } });
        await response.arrayBuffer();
        if (!response.ok) throw new Error(`GET /v1/voices answered ${response.status}`);
      }),
    );
  }
  return (mainThreadCpuNs(service.pid) - before) / 1000 / tokens.length;
}

/** Nanoseconds the process's main thread (where JavaScript runs) has spent on a CPU (/proc/<pid>/schedstat). */
function mainThreadCpuNs(pid: number): number {
  return Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]);
}

function measureVerify(): number {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const data = Buffer.from('header.payload-of-a-typical-access-token'.repeat(8));
  const signature = sign('sha256', data, { key: privateKey, dsaEncoding: 'ieee-p1363' });
  for (let i = 0; i < 200; i++) verify('sha256', data, { key: publicKey, dsaEncoding: 'ieee-p1363' }, signature);
  const runs = 2000;
  const started = process.hrtime.bigint();
  for (let i = 0; i < runs; i++) verify('sha256', data, { key: publicKey, dsaEncoding: 'ieee-p1363' }, signature);
  return Number(process.hrtime.bigint() - started) / 1000 / runs;
}
