import { attachLimits, cpuBudgetLine, frameworkLine, limitLine, pageSizeFractions, pageSizeLine, type ProbeResult } from '../../bench/load/limits.js';
import { checkTargets, commandOf, limitTable } from '../../bench/load/report.js';
import { combine, type EndpointResult, type RunFigures } from '../../bench/shared/load.js';
import { parseOptions } from '../../bench/shared/options.js';
import { SCENARIOS } from '../../bench/shared/scenarios.js';

/** Each endpoint against the bare probe and the framework probe doing its work (docs/performance.md). */

const figures = (requestsPerSecond: number) =>
  combine([
    {
      latencies: new Float64Array([1, 2, 3]),
      durationSeconds: 1,
      responses: requestsPerSecond,
      non2xx: 0,
      errors: 0,
      statusCodes: { 200: requestsPerSecond },
      rss: { maxMb: 100, meanMb: 90, cpuMs: requestsPerSecond / 10, systemCpuMs: requestsPerSecond / 40, preemptions: requestsPerSecond / 4 },
      database: { cpuMs: 0, statements: 0, transactionControl: 0 },
      loadCpuMs: 1,
      windowUs: [0, 1_000_000],
    } satisfies RunFigures,
  ]);

const probes: ProbeResult[] = [
  { key: 'json', bound: 'json', stack: 'bare', label: 'bare json', figures: figures(40_000) },
  { key: 'pk-select', bound: 'pk-select', stack: 'bare', label: 'bare pk', figures: figures(8_000) },
  { key: 'framework-json', bound: 'json', stack: 'framework', label: 'framework json', figures: figures(16_000), fractionOfBare: 0.4 },
  { key: 'framework-pk-select', bound: 'pk-select', stack: 'framework', label: 'framework pk', figures: figures(5_000), fractionOfBare: 0.625 },
];

const endpoint = (key: string, requestsPerSecond: number): EndpointResult => ({
  key,
  label: SCENARIOS.find((s) => s.key === key)!.label,
  status: 'measured',
  connections: 32,
  service: figures(requestsPerSecond),
});

test('each endpoint gets its fraction of the bare probe and of the framework probe of the same work', () => {
  const results = [endpoint('categories', 12_000), endpoint('position-get', 4_000), endpoint('position-put', 3_000)];
  attachLimits(results, SCENARIOS, probes);
  expect(results[0].limit).toEqual({ probe: 'json', probeRequestsPerSecond: 40_000, fraction: 0.3 });
  expect(results[0].frameworkLimit).toEqual({ probe: 'framework-json', probeRequestsPerSecond: 16_000, fraction: 0.75 });
  expect(results[1].limit!.fraction).toBe(0.5);
  expect(results[1].frameworkLimit!.fraction).toBe(0.8);
  // No upsert probe measured here: neither fraction.
  expect(results[2].limit).toBeUndefined();
  expect(results[2].frameworkLimit).toBeUndefined();

  expect(limitLine(results[0])).toMatch(/^0\.30× the json probe \(12000 of 40000 req\/s\), 0\.75× the framework-json probe \(12000 of 16000 req\/s\) \| /);
  const table = limitTable(results, probes);
  expect(table).toContain('| `GET /v1/categories` | 12000 | json | 40000 | 0.30 | 16000 | 0.75 |');
  // A framework probe's row gives its fraction of the bare probe: the card's cost.
  expect(table).toContain('| `framework json` | 16000 | json | 16000 (rounds) | 0.40 | – | – |');
  expect(frameworkLine(probes)).toMatch(/^framework probes of bare: json 0\.40 \(16000 req\/s, .*\), pk-select 0\.63 /);
});

test("the catalog page also gets its fraction of the framework probe answering its size, and the size's own cost is printed", () => {
  const withPages: ProbeResult[] = [
    ...probes.map((p) => (p.bound === 'json' ? { ...p, answerBytes: 59 } : p)),
    { key: 'json-page', bound: 'json-page', stack: 'bare', label: 'bare page', figures: figures(30_000), answerBytes: 12_454 },
    {
      key: 'framework-json-page',
      bound: 'json-page',
      stack: 'framework',
      label: 'framework page',
      figures: figures(12_000),
      fractionOfBare: 0.4,
      answerBytes: 12_454,
    },
  ];
  const [novels, categories] = [endpoint('novels', 10_800), endpoint('categories', 12_000)];
  attachLimits([novels, categories], SCENARIOS, withPages);
  expect(novels.frameworkLimit).toEqual({ probe: 'framework-json', probeRequestsPerSecond: 16_000, fraction: 0.675 });
  expect(novels.frameworkSizedLimit).toEqual({ probe: 'framework-json-page', probeRequestsPerSecond: 12_000, fraction: 0.9 });
  // Only the endpoint that names a sized probe gets the third fraction.
  expect(categories.frameworkSizedLimit).toBeUndefined();
  expect(limitLine(novels)).toContain('0.90× the framework-json-page probe (10800 of 12000 req/s)');
  expect(pageSizeFractions(withPages)).toEqual({ bare: 0.75, framework: 0.75 });
  expect(pageSizeLine(withPages)).toBe('json-page probe of json probe (12454 bytes against 59): bare 0.75, framework 0.75');
  expect(pageSizeLine(probes)).toBeUndefined();
  // Only the bare pair measured: only its fraction.
  expect(pageSizeFractions(withPages.filter((p) => p.key !== 'framework-json-page'))).toEqual({ bare: 0.75 });
  // The table keeps its columns: the page probe's figures share the framework cells of the catalog's row.
  const table = limitTable([novels, categories], withPages);
  expect(table).toContain('| `GET /v1/novels` | 10800 | json | 40000 | 0.27 | 16000; framework-json-page: 12000 | 0.68; framework-json-page: 0.90 |');
  expect(table).toContain('| `GET /v1/categories` | 12000 | json | 40000 | 0.30 | 16000 | 0.75 |');
  const columns = (line: string) => line.split('|').length;
  for (const line of table.split('\n')) expect(columns(line)).toBe(columns(table.split('\n')[0]));
  expect(frameworkLine(withPages)).toMatch(/, json-page 0\.40 \(12000 req\/s/);
});

test('--node names the Node binary the servers run on, and the command says so', () => {
  expect(parseOptions([]).node).toBeUndefined();
  const options = parseOptions(['--quick', '--node=/usr/bin/node']);
  expect(options.node).toBe('/usr/bin/node');
  expect(commandOf(options)).toBe('npm run bench -- --quick --node=/usr/bin/node');
  expect(() => parseOptions(['--node'])).toThrow(/--node takes the path of a Node binary/);
});

test('an endpoint short of its fraction is explained in CPU per request: what the fraction allows the server after PostgreSQL and the load', () => {
  // The 2026-11-29 01:07 sitting's playback GET and pk-select probe.
  const cpu = (cpuMsPerRequest: number, postgresCpuMsPerRequest: number | null, loadCpuMsPerRequest: number) => ({
    ...figures(1_000),
    cpuMsPerRequest,
    postgresCpuMsPerRequest,
    loadCpuMsPerRequest,
  });
  const probe: ProbeResult = { key: 'pk-select', bound: 'pk-select', stack: 'bare', label: 'bare pk', figures: cpu(0.04, 0.063, 0.025) };
  const positionGet = { ...endpoint('position-get', 6_554), service: cpu(0.104, 0.117, 0.035), baseline: cpu(0.064, 0.09, 0.033) };
  expect(cpuBudgetLine(positionGet, probe, 0.65)).toBe(
    "CPU per request 0.256 ms (server 0.104, PostgreSQL 0.117, load 0.035) against the pk-select probe's 0.128 predicts 0.50×; " +
      '0.65× allows 0.197 ms, 0.045 for the server (bare Fastify sending the same statements: 0.064)',
  );
  // No PostgreSQL figure (a reading that failed): no explanation rather than a wrong one.
  expect(cpuBudgetLine({ ...positionGet, service: cpu(0.104, null, 0.035) }, probe, 0.65)).toBeUndefined();
  expect(cpuBudgetLine({ ...positionGet, baseline: undefined }, probe, 0.65)).toMatch(/0\.045 for the server$/);
});

test('the target lines of fractions short of their target carry the CPU budget, of the bare and of the framework probe', () => {
  const cpu = (requestsPerSecond: number, cpuMsPerRequest: number, postgresCpuMsPerRequest: number, loadCpuMsPerRequest: number) => ({
    ...figures(requestsPerSecond),
    cpuMsPerRequest,
    postgresCpuMsPerRequest,
    loadCpuMsPerRequest,
  });
  const withCpu: ProbeResult[] = probes.map((p) => ({
    ...p,
    figures: cpu(p.figures.requestsPerSecond, p.stack === 'bare' ? 0.04 : 0.05, p.bound === 'json' ? 0 : 0.06, 0.02),
  }));
  const positionGet = { ...endpoint('position-get', 4_000), service: cpu(4_000, 0.1, 0.06, 0.03) };
  const chapters = { ...endpoint('chapters-anonymous', 12_000), service: cpu(12_000, 0.04, 0, 0.03) };
  const categories = { ...endpoint('categories', 15_000), service: cpu(15_000, 0.03, 0, 0.02) };
  attachLimits([positionGet, chapters, categories], SCENARIOS, withCpu);
  const tokenCache = { tokens: 10, firstUseUsPerRequest: 150, repeatUsPerRequest: 40, es256VerifyUs: 46, met: true };
  const { lines } = checkTargets([positionGet, chapters, categories], withCpu, tokenCache);
  expect(lines).toContain(
    "target NOT met GET /v1/subscribers/{id}/playback-position: 0.50× the pk-select probe (≥ 0.65); CPU per request 0.190 ms (server 0.100, PostgreSQL 0.060, load 0.030) against the pk-select probe's 0.120 predicts 0.63×; 0.65× allows 0.185 ms, 0.095 for the server",
  );
  expect(lines).toContain(
    "target NOT met GET /v1/novels/{id}/chapters: 0.75× the framework-json probe (≥ 0.8); CPU per request 0.070 ms (server 0.040, PostgreSQL 0.000, load 0.030) against the framework-json probe's 0.070 predicts 1.00×; 0.8× allows 0.088 ms, 0.058 for the server",
  );
  // A target met needs no explanation.
  expect(lines.find((line) => line.includes('GET /v1/categories: 0.94× the framework-json probe'))).toBe(
    'target met     GET /v1/categories: 0.94× the framework-json probe (≥ 0.8)',
  );
});
