import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { metricNames, promqlProblems, ruleFileProblems, templateProblems } from '../support/prometheus-rules.js';
import { useTestApp } from '../support/test-app.js';

/**
 * Issue 38, item 5: the alert rules and the dashboard an operator loads name only metrics
 * the service exports, the rules pass `promtool check rules` (where it is installed) and the
 * same checks made with the Prometheus project's PromQL parser from npm (everywhere), and
 * every replica says which build it runs.
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
    expect(
      metricNames('sum by (le, route) (rate(http_request_duration_seconds_bucket{route!~"a/b"}[5m])) > 1 and absent(up) or {__name__="x"} offset 5m'),
    ).toEqual(['http_request_duration_seconds_bucket', 'up', 'x']);
  });

  it('pass the checks promtool makes, on every machine (PromQL parsed by @prometheus-io/lezer-promql)', () => {
    expect(ruleFileProblems(readFileSync(RULES, 'utf8'))).toEqual([]);
    // The dashboard's queries are PromQL too (range queries: a range vector is not allowed there either).
    expect(dashboardExpressions().flatMap(promqlProblems)).toEqual([]);
  });

  it('pass promtool check rules', () => {
    const promtool = promtoolCheck(RULES);
    if (!promtool) return;
    expect({ status: promtool.status, output: promtool.stdout + promtool.stderr }).toEqual({
      status: 0,
      output: expect.stringMatching(/SUCCESS: \d+ rules found/),
    });
  });
});

/**
 * `promtool check rules` on `file`; undefined where promtool is missing. It comes from
 * Debian's prometheus package, not npm: elsewhere the checks of ruleFileProblems stand in.
 */
function promtoolCheck(file: string): SpawnSyncReturns<string> | undefined {
  const promtool = spawnSync('promtool', ['check', 'rules', file], { encoding: 'utf8' });
  if ((promtool.error as NodeJS.ErrnoException | undefined)?.code !== 'ENOENT') return promtool;
  process.stderr.write(`SKIPPED promtool check rules ${file}: promtool is not installed (apt-get install prometheus)\n`);
  return undefined;
}

describe('the rule checks made without promtool', () => {
  /** A file of one alert rule: its fields after `alert: Planted`, one per line. */
  const alert = (...fields: string[]) =>
    ['groups:', '  - name: planted', '    rules:', '      - alert: Planted', ...fields.map((field) => `        ${field}`), ''].join('\n');
  const valid = ['expr: sum(rate(http_requests_total[5m])) > 1', 'for: 5m', 'labels:', '  severity: warning', 'annotations:', '  summary: "{{ $value }}"'];
  const replaced = (field: string, ...lines: string[]) => {
    const at = valid.findIndex((line) => line.startsWith(field));
    return alert(...valid.slice(0, at), ...lines, ...valid.slice(at + 1));
  };

  it('find nothing in a valid rule', () => {
    expect(ruleFileProblems(alert(...valid))).toEqual([]);
  });

  const planted: [string, string, RegExp][] = [
    ['an unclosed call', replaced('expr', 'expr: sum(rate(http_requests_total[5m]) > 1'), /expr: syntax error at character \d+/],
    ['an unknown function', replaced('expr', 'expr: rates(http_requests_total[5m]) > 1'), /expr: syntax error/],
    ['a dangling operator', replaced('expr', 'expr: http_requests_total >'), /expr: syntax error .*end of input/],
    [
      'an instant vector where a range vector is due',
      replaced('expr', 'expr: rate(http_requests_total) > 1'),
      /argument 1 of rate\(\): expected matrix, got vector/,
    ],
    ['a range vector as the result', replaced('expr', 'expr: http_requests_total[5m]'), /must be an instant vector or a scalar/],
    ['a range vector in arithmetic', replaced('expr', 'expr: http_requests_total[5m] > 1'), /operand of >: expected vector or scalar, got matrix/],
    ['a scalar comparison without bool', replaced('expr', 'expr: 1 > 2'), /BOOL modifier/],
    ['a selector that matches everything', replaced('expr', 'expr: count({job=""}) > 1'), /at least one non-empty matcher/],
    ['a missing aggregation argument', replaced('expr', 'expr: topk(http_requests_total) > 1'), /wrong number of arguments for aggregate expression topk/],
    ['an empty expression', replaced('expr', 'expr: ""'), /field 'expr' must be set/],
    ['a duration that is not one', replaced('for', 'for: 5 minutes'), /for: not a valid duration string/],
    ['a duration with units out of order', replaced('for', 'for: 5m1h'), /for: not a valid duration string/],
    ['a label value that is not a string', replaced('  severity', '  severity: [warning]'), /labels: severity is not a string/],
    ['an invalid label name', replaced('  severity', '  sever-ity: warning'), /invalid label name: sever-ity/],
    ['an unknown field', alert(...valid, 'annotation: {}'), /field annotation not found/],
    ['both record and alert', alert(...valid, 'record: planted:rate5m'), /only one of 'record' and 'alert' must be set/],
    ['an unclosed template action', replaced('  summary', '  summary: "{{ $value "'), /unclosed action/],
    ['an unknown template function', replaced('  summary', '  summary: "{{ $value | humanise }}"'), /function "humanise" not defined/],
    ['an undefined template variable', replaced('  summary', '  summary: "{{ $lables.route }}"'), /undefined variable "\$lables"/],
    ['a template block without end', replaced('  summary', '  summary: "{{ if $value }}high"'), /\{\{if\}\} without \{\{end\}\}/],
    ['a key given twice', alert(...valid, 'for: 10m'), /yaml: Map keys must be unique/],
  ];

  it.each(planted)('fail on %s', (_, file, problem) => {
    expect(ruleFileProblems(file)).toEqual([expect.stringMatching(problem)]);
  });

  // promtool parses a rule's expression but leaves its result type to the evaluation, which
  // then fails every time: the check here refuses it at once.
  const stricterThanPromtool = new Set(['a range vector as the result']);

  it('agree with promtool where it is installed: it refuses each planted file too', () => {
    const dir = mkdtempSync(join(tmpdir(), 'prl-rules-'));
    try {
      const accepted: string[] = [];
      for (const [name, file] of planted.filter(([name]) => !stricterThanPromtool.has(name))) {
        writeFileSync(join(dir, 'rules.yml'), file);
        const promtool = promtoolCheck(join(dir, 'rules.yml'));
        if (!promtool) return;
        if (promtool.status !== 1) accepted.push(name);
      }
      expect(accepted).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('fail on a rule without record or alert, and a recording rule with alert fields', () => {
    const file = [
      'groups:',
      '  - name: planted',
      '    rules:',
      '      - expr: up',
      '      - record: planted-rate',
      '        expr: up',
      '        for: 5m',
      '',
    ].join('\n');
    expect(ruleFileProblems(file)).toEqual([
      expect.stringMatching(/one of 'record' and 'alert' must be set/),
      expect.stringMatching(/invalid recording rule name/),
      expect.stringMatching(/invalid field 'for' in recording rule/),
    ]);
  });

  it('fail on a group name used twice and on a rule repeated with the same labels, in any group', () => {
    const group = (name: string, alert: string, severity: string) => [
      `  - name: ${name}`,
      '    rules:',
      `      - alert: ${alert}`,
      '        expr: up == 0',
      '        labels:',
      `          severity: ${severity}`,
    ];
    const file = (...groups: string[][]) => ['groups:', ...groups.flat(), ''].join('\n');
    expect(ruleFileProblems(file(group('one', 'Planted', 'info'), group('one', 'Other', 'info')))).toEqual([
      expect.stringMatching(/group "one": groupname is repeated/),
    ]);
    expect(ruleFileProblems(file(group('one', 'Planted', 'info'), group('two', 'Planted', 'info')))).toEqual([
      expect.stringMatching(/group "two", rule "Planted": duplicate rule/),
    ]);
    expect(ruleFileProblems(file(group('one', 'Planted', 'info'), group('two', 'Planted', 'critical')))).toEqual([]);
  });

  it('accept the PromQL and templates Prometheus accepts', () => {
    const expressions = [
      'sum by (le) (rate(x_bucket{a=~"5.."}[5m] offset 1h)) / on() group_left scalar(y)',
      'delta(max(x)[30m:1m]) > 0 and absent(z)',
      'count_values("v", x) > bool 1',
      'label_replace(x, "a", "$1", "b", "(.*)")',
      'x @ start() unless {__name__=~"y.+"}',
      'time() - timestamp(x) > 60',
      'vector(1)',
    ];
    expect(expressions.flatMap(promqlProblems)).toEqual([]);
    const templates = [
      '{{ $labels.instance }} at {{ $value | humanizePercentage }}',
      '{{ if gt $value 1.0 }}high{{ else }}low{{ end }}',
      '{{- range $i, $series := query "up" }}{{ $series.Labels.job }}{{ end -}}',
      '{{ with query "up" }}{{ . | first | value }}{{ end }} {{/* a comment */}}',
      'no template at all, not even }}',
    ];
    expect(templates.flatMap(templateProblems)).toEqual([]);
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
