// `npm run bench`: see docs/performance.md. Builds nothing itself (the npm script builds the
// service and the bench first), then: own database → migrations (by starting the built
// service) → seed → service, baseline and limit probes side by side → load the probes, each
// hot endpoint, the probes again → report.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { freePort } from '../../src/shared/net/free-port.js';
import { DatabaseMeter } from '../shared/database-meter.js';
import { endingCostLine, measureEndingStatement } from './ending-cost.js';
import { explainHotStatements } from './explain.js';
import { attachLimits, LimitProbes, type ProbeResult } from './limits.js';
import { loadEndpoint, type EndpointResult } from '../shared/load.js';
import { parseOptions, scaledSize, type BenchOptions } from '../shared/options.js';
import { profileLines, summariseProfiles } from './profile.js';
import { writeReport } from './report.js';
import { writeScaleReport } from './scale-report.js';
import type { SeededData } from '../shared/seed.js';
import { SCENARIOS, type Rotation } from '../shared/scenarios.js';
import { startServer, type RunningServer } from '../shared/servers.js';
import { ROOT, SERVER_SECRET, withSeededService } from '../shared/service-setup.js';
import { statementsPerRequest, type SqlComparison } from './sql-check.js';
import { checkTokenCache, issueTokens } from '../shared/token-cache.js';
import { measureLongPolls } from './long-polls.js';
import { measureUnlockJob } from './unlock-job.js';
import { measureWebhookBacklog } from './webhook-backlog.js';

const log = (line: string) => process.stderr.write(`${line}\n`);
/** Seconds of no load over which the database's background rate is measured (the unlock job runs every 30 s, webhook polling every second). */
const IDLE_CALIBRATION_SECONDS = 10;

async function main(): Promise<number> {
  const options = parseOptions(process.argv.slice(2));
  // The servers run on --node's binary, else on the bench's own; the result file records both.
  const serversNode = nodeOf(options.node ?? process.execPath);
  log(`bench: Node ${process.version} (${process.execPath}); servers on Node ${serversNode.version} (${serversNode.path})`);
  if (options.scale === 1) return (await benchOnce(options, serversNode)).exitCode;
  // One sitting: the same machine, build and settings for both sizes, the smaller first.
  const base = await benchOnce({ ...options, scale: 1 }, serversNode);
  const scaled = await benchOnce({ ...options, size: scaledSize(options.size, options.scale) }, serversNode);
  const written = writeScaleReport(ROOT, base.json, scaled.json);
  log(`bench: ×${options.scale} over ×1 written to ${written.markdown}`);
  return Math.max(base.exitCode, scaled.exitCode);
}

/** The version of a Node binary (a path, or a name on PATH), refused when it does not run. */
function nodeOf(binary: string): { path: string; version: string } {
  try {
    return { path: binary, version: execFileSync(binary, ['--version'], { encoding: 'utf8' }).trim() };
  } catch (error) {
    throw new Error(`bench: --node=${binary} does not run: ${(error as Error).message}`);
  }
}

/**
 * One run on its own database at `options.size` (`options.scale` times the base size): the
 * exit code and the result file.
 */
async function benchOnce(options: BenchOptions, serversNode: { path: string; version: string }): Promise<{ exitCode: number; json: string }> {
  const startedAt = new Date();
  return withSeededService(
    options.size,
    {},
    async (setup) => {
      const { database, data, serviceEnv, publicBaseUrl } = setup;
      const profileDir = join(ROOT, 'bench/results/profiles');
      const plans = await explainHotStatements(database.url, data);
      for (const plan of plans) {
        log(
          `explain: ${plan.name}: ${plan.nodes.join(' > ')} (${plan.executionMs} ms)${plan.sequentialScans.length ? ` SEQUENTIAL SCAN: ${plan.sequentialScans.join(', ')}` : ''}`,
        );
      }

      const profileFlags = options.profile ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
      const service = await setup.startService(profileFlags);
      const baseline = await startServer({
        name: 'baseline',
        script: join(ROOT, 'dist/bench/baseline/server.js'),
        env: { DATABASE_URL: database.url, SERVER_SECRET, PUBLIC_BASE_URL: publicBaseUrl },
        port: await freePort(),
        nodeFlags: profileFlags,
        node: options.node,
      });
      setup.defer(() => baseline.stop());
      log(`bench: service pid ${service.pid} at ${service.baseUrl}, baseline pid ${baseline.pid} at ${baseline.baseUrl}`);
      const pageBytes = await catalogPageBytes(service.baseUrl, data.credentials);
      log(`bench: a catalog page (GET /v1/novels?page=1) is ${pageBytes} bytes: the json-page probes answer as many`);
      const probes = await LimitProbes.start(
        ROOT,
        database.url,
        (server) => setup.defer(() => server.stop()),
        { env: serviceEnv, node: options.node, nodeFlags: profileFlags },
        pageBytes,
      );

      if (options.keep) {
        log(`bench: --keep: DATABASE_URL=${database.url}`);
        log(`bench: credentials: ${JSON.stringify(data.credentials.slice(0, 2))}`);
        log('bench: press Ctrl-C to stop and remove everything');
        await new Promise(() => undefined);
      }

      const meter = await DatabaseMeter.open(database.url, database.statementStats, database.postmasterPid);
      setup.defer(() => meter.close());
      const databaseIdle = await meter.calibrateIdle(IDLE_CALIBRATION_SECONDS);
      log(
        `bench: database with no load: ${databaseIdle.statements?.toFixed(1)} statements/s, ${databaseIdle.cpuMs?.toFixed(1)} ms of PostgreSQL CPU/s ` +
          `(the servers' background jobs; taken out of every measured window)`,
      );
      // The framework probe verifies the service's tokens (same database, keys and issuer),
      // issued afresh for each measurement: the endpoints' runs between the two outlast a token.
      const probeRotation = async (): Promise<Rotation> => ({
        tokens: await issueTokens(service.baseUrl, data.credentials, options.size.tokensPerCredential),
        credentials: data.credentials,
        readers: data.readers,
        novelIds: data.novelIds,
        period: data.period,
      });
      await probes.measure(options, await probeRotation(), meter);
      const results: EndpointResult[] = [];
      const sql: SqlComparison[] = [];
      for (const scenario of SCENARIOS) {
        if (options.only && !options.only.has(scenario.key)) continue;
        if (scenario.singleClientRequests) {
          // A report costs PostgreSQL milliseconds a request at a few hundred a second, so the
          // work the endpoints before it left behind (folding their activity, autovacuum) could
          // pass for its own: the background rate is measured again just before.
          const idle = await meter.calibrateIdle(IDLE_CALIBRATION_SECONDS);
          log(`bench: database with no load before ${scenario.label}: ${idle.cpuMs?.toFixed(1)} ms of PostgreSQL CPU/s (taken out of its windows)`);
        }
        const tokens = await issueTokens(service.baseUrl, data.credentials, options.size.tokensPerCredential);
        const rotation: Rotation = { tokens, credentials: data.credentials, readers: data.readers, novelIds: data.novelIds, period: data.period };
        const result = await loadEndpoint(scenario, rotation, service, baseline, options, meter);
        results.push(result);
        if (result.status === 'measured' && database.statementStats) {
          sql.push(await statementsPerRequest(database.url, scenario, rotation, service, baseline));
        }
      }
      // After the endpoints: the service's folding has run, so the counts are read as in service.
      const endingCost = options.only && !options.only.has('engagement') ? undefined : await measureEndingStatement(database.url, data, meter);
      if (endingCost) log(endingCostLine(endingCost));
      await probes.measure(options, await probeRotation(), meter);
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
      const profile = options.profile ? summariseRun(profileDir, service, baseline, probes.framework, results, probeResults) : undefined;
      if (profile) log(`bench: CPU profiles in ${profileDir}; summarise one with: node dist/bench/load/profile.js FILE.cpuprofile [TOP] [SKIP_MS]`);
      const written = writeReport({
        root: ROOT,
        startedAt,
        options,
        serversNode,
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
        endingCost,
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
    },
    options.node,
  );
}

/** The bytes of the service's first catalog page, the answer the json-page probes imitate. */
async function catalogPageBytes(baseUrl: string, credentials: SeededData['credentials']): Promise<number> {
  const [token] = await issueTokens(baseUrl, credentials.slice(0, 1), 1);
  const response = await fetch(`${baseUrl}/v1/novels?page=1`, { headers: { authorization: `Bearer ${token}` } });
  if (!response.ok) throw new Error(`bench: GET /v1/novels answered ${response.status}`);
  return Buffer.byteLength(await response.text());
}

/**
 * `--profile`: self time of each server over its measured load only (the service's over all
 * endpoints and per endpoint, the framework probe's per probe), each endpoint's printed.
 */
function summariseRun(
  dir: string,
  service: RunningServer,
  baseline: RunningServer,
  framework: RunningServer | undefined,
  results: readonly EndpointResult[],
  probes: readonly ProbeResult[],
) {
  const endpoints = Object.fromEntries(
    results.filter((r) => r.serviceWindowsUs?.length).map((r) => [r.key, summariseProfiles(dir, service.pid, r.serviceWindowsUs, 15)]),
  );
  const frameworkProbes = framework
    ? Object.fromEntries(probes.filter((p) => p.stack === 'framework').map((p) => [p.key, summariseProfiles(dir, framework.pid, p.windowsUs, 15)]))
    : {};
  for (const [key, summary] of [...Object.entries(endpoints), ...Object.entries(frameworkProbes)]) {
    if (summary) for (const line of profileLines(summary, 12)) log(`profile: ${key}: ${line}`);
  }
  return {
    service: summariseProfiles(
      dir,
      service.pid,
      results.flatMap((r) => r.serviceWindowsUs ?? []),
    ),
    endpoints,
    baseline: summariseProfiles(dir, baseline.pid),
    framework: frameworkProbes,
  };
}

process.exitCode = await main().catch((error) => {
  log(`bench failed: ${(error as Error).stack ?? error}`);
  return 1;
});
