import { engagementMachineLine, engagementScaleLine, scaleRows, scaleTable, type ResultFile } from '../../bench/load/scale-report.js';
import type { EndingStatementCost } from '../../bench/load/ending-cost.js';

/** The ×N over ×1 verdict on the engagement report's PostgreSQL CPU (issue 41, docs/scaling.md). */

const run = (postgresCpuMsPerRequest: number | undefined, cost?: Partial<EndingStatementCost>): ResultFile => ({
  command: 'npm run bench -- --scale=10',
  data: { rows: {} },
  endpoints: [
    { key: 'engagement', label: 'GET /v1/analytics/engagement', status: 'measured', service: { requestsPerSecond: 400, p99Ms: 20, postgresCpuMsPerRequest } },
  ],
  engagement_ending_cost: cost && {
    countRows: 5_000,
    endings: 3_000,
    answerRows: 368,
    servedCpuMs: null,
    countedCpuMs: null,
    answerCpuUsPerRow: null,
    ...cost,
  },
});

describe('engagementScaleLine', () => {
  it('meets the target when the report grows by at most 1.3 times', () => {
    expect(engagementScaleLine(run(3), run(3.9))).toBe('target met     engagement report: PostgreSQL CPU per report 3 → 3.9 ms, ×1.30 (≤ 1.3)');
  });

  it('splits a miss into sending the ending answer and the rest', () => {
    const line = engagementScaleLine(
      run(2.92, { answerRows: 368, servedCpuMs: 2.09, countedCpuMs: 1.9 }),
      run(4.02, { answerRows: 3_000, servedCpuMs: 2.64, countedCpuMs: 1.95 }),
    );
    expect(line).toBe(
      'target not met engagement report: PostgreSQL CPU per report 2.92 → 4.02 ms, ×1.38 (≤ 1.3); ' +
        'sending the ending answer (368 → 3,000 rows past the minimum) 0.19 → 0.69 ms, the rest 2.73 → 3.33 ms, ×1.22',
    );
  });

  it('gives the bare ratio when the ending statement was not measured, and nothing without the report', () => {
    expect(engagementScaleLine(run(2, { servedCpuMs: null }), run(3, { servedCpuMs: 2 }))).toBe(
      'target not met engagement report: PostgreSQL CPU per report 2 → 3 ms, ×1.50 (≤ 1.3)',
    );
    expect(engagementScaleLine(run(undefined), run(3))).toBeUndefined();
  });

  it('is printed under the ×N table', () => {
    expect(scaleTable(run(3), run(3.3), 'a.json', 'b.json')).toContain(
      '\ntarget met     engagement report: PostgreSQL CPU per report 3 → 3.3 ms, ×1.10 (≤ 1.3)\n',
    );
  });
});

describe('engagementMachineLine', () => {
  const withProbe = (file: ResultFile, cpuMsPerRequest: number): ResultFile => ({
    ...file,
    limit_probes: [
      { key: 'json-page', stack: 'framework', figures: { cpuMsPerRequest: 1 } },
      { key: 'json-page', stack: 'bare', figures: { cpuMsPerRequest } },
    ],
  });

  it("divides the report's ratio by the bare json-page probe's, the machine's speed in each half (10:25 sitting)", () => {
    expect(engagementMachineLine(withProbe(run(3.252), 0.024), withProbe(run(4.886), 0.029))).toBe(
      "the machine: the bare json-page probe's CPU per request 0.024 → 0.029 ms (×1.21); the engagement ratio divided by it ×1.24",
    );
  });

  it('says nothing without the probe or the report', () => {
    expect(engagementMachineLine(run(3), run(3.3))).toBeUndefined();
    expect(engagementMachineLine(withProbe(run(undefined), 0.02), withProbe(run(3), 0.02))).toBeUndefined();
  });

  it('is printed under the verdict, and the probe is a row of the table', () => {
    const [base, scaled] = [withProbe(run(3), 0.02), withProbe(run(3.3), 0.022)];
    expect(scaleTable(base, scaled, 'a.json', 'b.json')).toContain(
      "×1.10 (≤ 1.3)\n\nthe machine: the bare json-page probe's CPU per request 0.02 → 0.022 ms (×1.10); the engagement ratio divided by it ×1.00\n",
    );
    expect(scaleRows(base, scaled)).toContainEqual({
      figure: "bare json-page probe: CPU ms per request (the machine's speed)",
      base: 0.02,
      scaled: 0.022,
      ratio: 1.1,
    });
  });
});
