import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { useTestApp } from '../support/test-app.js';

/**
 * Issue 38, item 5: the alert rules and the dashboard an operator loads name only metrics
 * the service exports, the rules pass `promtool check rules`, and every replica says which
 * build it runs.
 */
const t = useTestApp();

const RULES = 'deploy/prometheus/alerts.yml';
const DASHBOARD = 'deploy/grafana/dashboard.json';

const ruleExpressions = () =>
  (parse(readFileSync(RULES, 'utf8')) as { groups: { rules: { alert: string; expr: string }[] }[] }).groups.flatMap((group) =>
    group.rules.map((rule) => rule.expr),
  );
const dashboardExpressions = () =>
  (JSON.parse(readFileSync(DASHBOARD, 'utf8')) as { panels: { targets: { expr: string }[] }[] }).panels.flatMap((panel) =>
    panel.targets.map((target) => target.expr),
  );

/** PromQL words that are not metric names. */
const PROMQL_WORDS = new Set(['and', 'or', 'unless', 'by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'offset', 'bool', 'inf', 'nan']);

/** The metric names an expression reads: identifiers that are neither functions, keywords, labels nor inside strings. */
function metricNames(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, '')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, '')
    .replace(/\[[^\]]*\]/g, '');
  return [...bare.matchAll(/\b([a-zA-Z_:][\w:]*)\b(?!\s*\()/g)].map((match) => match[1]).filter((word) => !PROMQL_WORDS.has(word.toLowerCase()));
}

/** Every series name /metrics declares, with a histogram's _bucket, _sum and _count. */
async function exportedNames(): Promise<Set<string>> {
  // One answered request, so that the request series exist as they do on a live replica.
  await t.inject({ method: 'GET', url: '/health/live' });
  const body = (await t.inject({ method: 'GET', url: '/metrics' })).body;
  const names = new Set<string>();
  for (const [, name, type] of body.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    names.add(name);
    if (type === 'histogram' || type === 'summary') for (const suffix of ['_bucket', '_sum', '_count']) names.add(name + suffix);
  }
  return names;
}

describe('the alert rules and the dashboard', () => {
  it('find every metric they name in /metrics', async () => {
    const exported = await exportedNames();
    const named = new Set([...ruleExpressions(), ...dashboardExpressions()].flatMap(metricNames));
    expect(named.size).toBeGreaterThan(10);
    expect([...named].filter((name) => !exported.has(name))).toEqual([]);
  });

  it('reads metric names out of PromQL, not functions, labels or keywords', () => {
    expect(metricNames('sum by (le, route) (rate(http_request_duration_seconds_bucket{route!~"a/b"}[5m])) > 1 and absent(up)')).toEqual([
      'http_request_duration_seconds_bucket',
      'up',
    ]);
  });

  it('pass promtool check rules', () => {
    const promtool = spawnSync('promtool', ['check', 'rules', RULES], { encoding: 'utf8' });
    if ((promtool.error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT') {
      // promtool comes from Debian's prometheus package, not npm: where it is missing, the
      // rules are still parsed and their metrics checked above; operators run it before loading them.
      process.stderr.write(`SKIPPED promtool check rules ${RULES}: promtool is not installed (apt-get install prometheus)\n`);
      return;
    }
    expect({ status: promtool.status, output: promtool.stdout + promtool.stderr }).toEqual({
      status: 0,
      output: expect.stringMatching(/SUCCESS: \d+ rules found/),
    });
  });
});

describe('which build runs', () => {
  const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };

  it('is a build_info gauge with the version, commit and Node version', async () => {
    const body = (await t.inject({ method: 'GET', url: '/metrics' })).body;
    const line = /^partner_api_build_info\{(.*)\} 1$/m.exec(body);
    expect(line?.[1]).toContain(`version="${version}"`);
    expect(line?.[1]).toContain(`node="${process.version}"`);
    expect(line?.[1]).toMatch(/commit="[0-9a-f]{12}|unknown"/);
  });

  it('is in the readiness answer', async () => {
    expect((await t.inject({ method: 'GET', url: '/health/ready' })).json()).toEqual({ status: 'ok', version, commit: expect.any(String) });
  });
});
