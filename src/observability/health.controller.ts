import { Controller, Get, Header, Inject } from '@nestjs/common';
import { ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import { DataSource } from 'typeorm';
import { AppConfig } from '../config/app-config.js';
import { ApiError } from '../shared/errors/api-error.js';
import { ErrorBodyDto } from '../shared/http/error-body.dto.js';
import { ReadinessChecks } from '../shared/readiness-checks.js';
import { Public } from '../modules/identity/index.js';
import { buildInfo } from './build-info.js';
import { HttpMetrics } from './metrics.js';
import { ShutdownSignal } from '../shared/shutdown-signal.js';

const READINESS_TIMEOUT_MS = 2000;

@ApiTags('Operations')
@Controller()
export class HealthController {
  constructor(
    private readonly dataSource: DataSource,
    @Inject(HttpMetrics) private readonly metrics: HttpMetrics,
    private readonly config: AppConfig,
    private readonly readiness: ReadinessChecks,
    private readonly shutdown: ShutdownSignal,
  ) {}

  @Get('health/live')
  @Public()
  @ApiOperation({
    summary: 'Liveness: the process answers',
    description: 'Answers 200 while the process runs, whatever the database: restart the process only when this fails.',
  })
  @ApiOkResponse({ schema: { example: { status: 'ok' } } })
  live() {
    return { status: 'ok' };
  }

  @Get('health/ready')
  @Public()
  @ApiOperation({
    summary: 'Readiness: the database answers and goes with this replica',
    description:
      'Answers 200 when the database answered within 2 s and still records the SERVER_SECRET this replica was given, else 503 with the reason in `error_description`: take the replica out of the load balancer meanwhile. Also 503 once the replica is stopping (SHUTDOWN_DELAY_SECONDS, then the drain).',
  })
  @ApiOkResponse({ schema: { example: { status: 'ok', version: '0.1.0', commit: '0e49222a1b2c' } } })
  @ApiServiceUnavailableResponse({ type: ErrorBodyDto, description: 'temporarily_unavailable' })
  async ready() {
    if (this.shutdown.leavingLoadBalancer) {
      throw new ApiError('temporarily_unavailable', 'This replica is stopping: the load balancer should send requests elsewhere.', { 'Retry-After': '1' });
    }
    const check = this.dataSource.query('SELECT 1');
    const timeout = new Promise<never>((_, reject) => setTimeout(() => reject(new Error('timeout')), READINESS_TIMEOUT_MS).unref());
    try {
      await Promise.race([check, timeout]);
    } catch {
      check.catch(() => undefined);
      throw new ApiError('temporarily_unavailable', 'The database is unreachable.', { 'Retry-After': '5' });
    }
    const reasons = await this.readiness.reasons();
    if (reasons.length) throw new ApiError('temporarily_unavailable', `Not ready: ${reasons.join('; ')}`, { 'Retry-After': '5' });
    // Which build answers: a rollout can be followed replica by replica.
    const { version, commit } = buildInfo();
    return { status: 'ok', version, commit };
  }

  @Get('metrics')
  @Public()
  @Header('Cache-Control', 'no-store')
  @Header('Content-Type', 'text/plain; version=0.0.4; charset=utf-8')
  @ApiOkResponse({ description: 'The Prometheus text exposition format.', content: { 'text/plain': { schema: { type: 'string' } } } })
  @ApiNotFoundResponse({ type: ErrorBodyDto, description: 'not_found: metrics are served on METRICS_PORT, or nowhere' })
  @ApiOperation({
    summary: 'Prometheus metrics (request counts and latency histograms per route)',
    description:
      'For operators, in the Prometheus text format. Never served on this port in production (METRICS_PORT gives it a port of its own); 404 where it is not served.',
  })
  async scrape(): Promise<string> {
    // METRICS_PORT moves the figures off this port, or turns them off.
    if (this.config.metricsPort !== null) throw new ApiError('not_found', 'No endpoint answers GET /metrics.');
    return this.metrics.render();
  }
}
