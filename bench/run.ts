// `npm run bench`: see docs/performance.md. Builds nothing itself (the npm script builds the
// service and the bench first), then: own database → migrations (by starting the built
// service) → seed → service, baseline and limit probes side by side → load the probes, each
// hot endpoint, the probes again → report.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { freePort } from '../src/shared/net/free-port.js';
import { createBenchDatabase } from './database.js';
import { DatabaseMeter } from './database-meter.js';
import { explainHotStatements } from './explain.js';
import { attachLimits, LimitProbes } from './limits.js';
import { loadEndpoint, type EndpointResult } from './load.js';
import { parseOptions, scaledSize, type BenchOptions } from './options.js';
import { summariseProfiles } from './profile.js';
import { writeReport } from './report.js';
import { writeScaleReport } from './scale-report.js';
import { SCENARIOS, type Rotation } from './scenarios.js';
import { seed } from './seed.js';
import { startServer, type RunningServer } from './servers.js';
import { statementsPerRequest, type SqlComparison } from './sql-check.js';
import { checkTokenCache, issueToken } from './token-cache.js';
import { measureLongPolls } from './long-polls.js';
import { measureUnlockJob } from './unlock-job.js';
import { measureWebhookBacklog } from './webhook-backlog.js';

const ROOT = resolve(import.meta.dirname, '../..');
const log = (line: string) => process.stderr.write(`${line}\n`);
const SERVER_SECRET = 'bench-server-secret-bench-server-secret-0123';
/** Seconds of no load over which the database's background rate is measured (the unlock job runs every 30 s, webhook polling every second). */
const IDLE_CALIBRATION_SECONDS = 10;

async function main(): Promise<number> {
  const options = parseOptions(process.argv.slice(2));
  if (options.scale === 1) return (await benchOnce(options)).exitCode;
  // One sitting: the same machine, build and settings for both sizes, the smaller first.
  const base = await benchOnce({ ...options, scale: 1 });
  const scaled = await benchOnce({ ...options, size: scaledSize(options.size, options.scale) });
  const written = writeScaleReport(ROOT, base.json, scaled.json);
  log(`bench: ×${options.scale} over ×1 written to ${written.markdown}`);
  return Math.max(base.exitCode, scaled.exitCode);
}

/**
 * One run on its own database at `options.size` (`options.scale` times the base size): the
 * exit code and the result file.
 */
async function benchOnce(options: BenchOptions): Promise<{ exitCode: number; json: string }> {
  const startedAt = new Date();
  const dataDir = mkdtempSync(join(tmpdir(), 'prl-bench-data-'));
  const database = await createBenchDatabase();
  const servers: RunningServer[] = [];
  let meter: DatabaseMeter | undefined;
  const cleanup = async () => {
    await meter?.close().catch(() => undefined);
    for (const server of servers) await server.stop().catch(() => undefined);
    await database.dispose().catch((error) => log(`bench: could not remove the database: ${error}`));
    rmSync(dataDir, { recursive: true, force: true });
  };
  const interrupted = () => void cleanup().then(() => process.exit(130));
  process.once('SIGINT', interrupted);
  try {
    const servicePort = await freePort();
    // https: production requires it (DECISIONS 21); it only names the token issuer and stream URLs here.
    const publicBaseUrl = `https://127.0.0.1:${servicePort}`;
    const profileDir = join(ROOT, 'bench/results/profiles');
    const serviceEnv = {
      DATABASE_URL: database.url,
      DATA_DIR: dataDir,
      NODE_ENV: 'production',
      SERVER_SECRET,
      PUBLIC_BASE_URL: publicBaseUrl,
      LOG_LEVEL: 'warn',
      KEY_ACTIVATION_DELAY_SECONDS: '0',
      // Many requests per credential per second: the bench measures work, not refusals.
      RATE_LIMIT_RPS: '1000000',
      RATE_LIMIT_BURST: '1000000',
    };
    log('bench: starting the service once to apply the migrations');
    const migrating = await startServer({ name: 'service', script: join(ROOT, 'dist/src/main.js'), env: serviceEnv, port: servicePort });
    await migrating.stop();

    const data = await seed(database.url, options.size, SERVER_SECRET, dataDir, join(ROOT, 'catalog/demo/audio'));
    const plans = await explainHotStatements(database.url, data);
    for (const plan of plans) {
      log(
        `explain: ${plan.name}: ${plan.nodes.join(' > ')} (${plan.executionMs} ms)${plan.sequentialScans.length ? ` SEQUENTIAL SCAN: ${plan.sequentialScans.join(', ')}` : ''}`,
      );
    }

    const service = await startServer({
      name: 'service',
      script: join(ROOT, 'dist/src/main.js'),
      env: serviceEnv,
      port: servicePort,
      nodeFlags: options.profile ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [],
    });
    servers.push(service);
    const baseline = await startServer({
      name: 'baseline',
      script: join(ROOT, 'dist/bench/baseline/server.js'),
      env: { DATABASE_URL: database.url, SERVER_SECRET, PUBLIC_BASE_URL: publicBaseUrl },
      port: await freePort(),
      nodeFlags: options.profile ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [],
    });
    servers.push(baseline);
    log(`bench: service pid ${service.pid} at ${service.baseUrl}, baseline pid ${baseline.pid} at ${baseline.baseUrl}`);
    const probes = await LimitProbes.start(ROOT, database.url, (server) => servers.push(server));

    if (options.keep) {
      log(`bench: --keep: DATABASE_URL=${database.url}`);
      log(`bench: credentials: ${JSON.stringify(data.credentials.slice(0, 2))}`);
      log('bench: press Ctrl-C to stop and remove everything');
      await new Promise(() => undefined);
    }

    meter = await DatabaseMeter.open(database.url, database.statementStats, database.postmasterPid);
    const databaseIdle = await meter.calibrateIdle(IDLE_CALIBRATION_SECONDS);
    log(
      `bench: database with no load: ${databaseIdle.statements?.toFixed(1)} statements/s, ${databaseIdle.cpuMs?.toFixed(1)} ms of PostgreSQL CPU/s ` +
        `(the servers' background jobs; taken out of every measured window)`,
    );
    const probeRotation: Rotation = { tokens: [], credentials: data.credentials, readers: data.readers, novelIds: data.novelIds, period: data.period };
    await probes.measure(options, probeRotation, meter);
    const results: EndpointResult[] = [];
    const sql: SqlComparison[] = [];
    for (const scenario of SCENARIOS) {
      if (options.only && !options.only.has(scenario.key)) continue;
      const tokens = await issueTokens(service.baseUrl, data.credentials, options.size.tokensPerCredential);
      const rotation: Rotation = { tokens, credentials: data.credentials, readers: data.readers, novelIds: data.novelIds, period: data.period };
      const result = await loadEndpoint(scenario, rotation, service, baseline, options, meter);
      results.push(result);
      if (result.status === 'measured' && database.statementStats) {
        sql.push(await statementsPerRequest(database.url, scenario, rotation, service, baseline));
      }
    }
    await probes.measure(options, probeRotation, meter);
    const probeResults = probes.results();
    attachLimits(results, SCENARIOS, probeResults);
    const tokenCache = await checkTokenCache(service, data.credentials, options.quick ? 1000 : 3000);
    log(
      `bench: token check over ${tokenCache.tokens} tokens: first use ${tokenCache.firstUseUsPerRequest} us of service CPU per request, ` +
        `repeat ${tokenCache.repeatUsPerRequest} us (one ES256 verification: ${tokenCache.es256VerifyUs} us)`,
    );
    await service.stop();
    await baseline.stop();
    await probes.stop();
    servers.length = 0;
    const [readers, due] = (options.quick ? [100_000, 100] : [1_000_000, 1_000]).map((n) => n * options.scale);
    const unlockJob = await measureUnlockJob(database.url, serviceEnv, data.novelIds[0], readers, due);
    log(`bench: chapter.unlocked job over ${unlockJob.readers} readers with ${unlockJob.due} due: ${unlockJob.runMs} ms, ${unlockJob.announced} announced`);
    const webhookBacklog = await measureWebhookBacklog(database.url, serviceEnv, (options.quick ? 50_000 : 500_000) * options.scale);
    log(
      `bench: webhook claim behind ${webhookBacklog.backlog} due deliveries of one partner: ${webhookBacklog.claimMs.median} ms median, ${webhookBacklog.claimMs.p99} ms p99; ` +
        `backlog gauges ${webhookBacklog.gaugesMs.median} ms median; ` +
        `another partner's event delivered in ${webhookBacklog.otherPartnerDeliveryMs.median} ms median, ${webhookBacklog.otherPartnerDeliveryMs.max} ms at most`,
    );
    const longPolls = await measureLongPolls(database.url, serviceEnv, 500, 5);
    log(
      `bench: ${longPolls.polls} waiting long polls: ${longPolls.feedReadsPerEvent} feed read per event, last answered ${longPolls.lastAnswerMs.median} ms median after the commit`,
    );
    const profile = options.profile
      ? { service: summariseProfiles(profileDir, service.pid), baseline: summariseProfiles(profileDir, baseline.pid) }
      : undefined;
    if (profile) log(`bench: CPU profiles in ${profileDir}; summarise one with: node dist/bench/profile.js FILE.cpuprofile [TOP] [SKIP_MS]`);
    const written = writeReport({
      root: ROOT,
      startedAt,
      options,
      database: database.description,
      databaseIdle,
      data,
      results,
      probes: probeResults,
      sql,
      plans,
      tokenCache,
      unlockJob,
      webhookBacklog,
      longPolls,
      profile,
    });
    log(`bench: results written to ${written.json} and ${written.svg}`);
    const bounded = results.filter((r) => r.limit);
    const lowestFraction = bounded.length ? bounded.reduce((a, b) => (b.limit!.fraction < a.limit!.fraction ? b : a)) : undefined;
    console.log(
      lowestFraction
        ? `bench: lowest limit fraction ${lowestFraction.limit!.fraction.toFixed(2)} (${lowestFraction.label})`
        : 'bench: lowest limit fraction n/a (no bounded endpoint measured)',
    );
    const measured = results.filter((r) => r.status === 'measured' && r.ratio !== undefined);
    if (measured.length === 0) {
      console.log('bench: lowest ratio n/a (no endpoint measured)');
      return { exitCode: 1, json: written.json };
    }
    const lowest = measured.reduce((a, b) => (b.ratio! < a.ratio! ? b : a));
    console.log(`bench: lowest ratio ${lowest.ratio!.toFixed(2)} (${lowest.label})`);
    return { exitCode: 0, json: written.json };
  } finally {
    process.off('SIGINT', interrupted);
    await cleanup();
  }
}

/** Fresh tokens for each endpoint's run (they live 600 s): tokensPerCredential per credential, all distinct. */
async function issueTokens(baseUrl: string, credentials: Rotation['credentials'], perCredential: number): Promise<string[]> {
  const tokens: string[] = [];
  for (let round = 0; round < perCredential; round++) {
    tokens.push(...(await Promise.all(credentials.map((credential) => issueToken(baseUrl, credential)))));
  }
  return tokens;
}

process.exitCode = await main().catch((error) => {
  log(`bench failed: ${(error as Error).stack ?? error}`);
  return 1;
});
