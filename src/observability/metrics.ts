import type { FastifyInstance } from 'fastify';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { surfaceOf } from '../shared/http/surfaces.js';
import { buildInfo } from './build-info.js';

/**
 * Prometheus metrics: request counts and latency histograms per route (the route
 * pattern, never the raw URL, so subscriber ids do not become label values).
 */
/** The counter and histogram of one (method, route, status). */
interface Series {
  answered: Counter.Internal;
  latency: Histogram.Internal<'method' | 'route'>;
}

export class HttpMetrics {
  readonly registry = new Registry();
  private readonly requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by method, route and status.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });
  private readonly latency = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request latency in seconds, by method and route.',
    labelNames: ['method', 'route'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [this.registry],
  });

  /** By route pattern, method and status. */
  private readonly seriesByRoute = new Map<string, Map<string, Map<number, Series>>>();

  private readonly rateLimited = new Counter({
    name: 'http_rate_limited_total',
    help: 'Requests refused with 429 rate_limited, by surface (platform, reading, sandbox, kids).',
    labelNames: ['surface'] as const,
    registers: [this.registry],
  });
  private readonly tokensIssued = new Counter({
    name: 'tokens_issued_total',
    help: 'Access tokens issued, by token endpoint surface (platform, kids).',
    labelNames: ['surface'] as const,
    registers: [this.registry],
  });

  /** Requests answered by this process since it started (for the drain's log lines). */
  answered = 0;

  constructor() {
    collectDefaultMetrics({ register: this.registry });
    const build = buildInfo();
    new Gauge({
      name: 'partner_api_build_info',
      help: 'Always 1; its labels say which build runs: version, git commit and Node version.',
      labelNames: ['version', 'commit', 'node'] as const,
      registers: [this.registry],
    }).set(build, 1);
  }

  /** Observes every answer, including errors and unknown routes. */
  install(fastify: FastifyInstance): void {
    fastify.addHook('onResponse', (request, reply, done) => {
      this.answered++;
      const route = request.routeOptions.url ?? 'unmatched';
      const series = this.series(request.method, route, reply.statusCode);
      series.answered.inc();
      series.latency.observe(reply.elapsedTime / 1000);
      if (reply.statusCode === 429) this.rateLimited.inc({ surface: surfaceOf(request.url) ?? 'none' });
      if (reply.statusCode === 200 && route.endsWith('/oauth2/token')) this.tokensIssued.inc({ surface: surfaceOf(request.url) ?? 'none' });
      done();
    });
  }

  /**
   * The labelled children of one (method, route, status), kept: prom-client hashes a label
   * object at every call, which the bench profile showed on every request. Bounded by the
   * routes (patterns, never raw URLs) times the statuses they answer.
   */
  private series(method: string, route: string, status: number): Series {
    // Nested maps: a key string built per request would be allocated and hashed every time.
    let byMethod = this.seriesByRoute.get(route);
    if (!byMethod) this.seriesByRoute.set(route, (byMethod = new Map()));
    let byStatus = byMethod.get(method);
    if (!byStatus) byMethod.set(method, (byStatus = new Map()));
    let series = byStatus.get(status);
    if (!series) {
      series = { answered: this.requests.labels(method, route, String(status)), latency: this.latency.labels(method, route) };
      byStatus.set(status, series);
    }
    return series;
  }

  render(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
