import { Body, Controller, Delete, Get, Header, HttpCode, Param, Post, Query, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import {
  ApiAcceptedResponse,
  ApiBadRequestResponse,
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { ErrorBodyDto } from '../../../shared/http/error-body.dto.js';
import { Extension } from '../../../shared/http/extension.decorator.js';
import { uuidPipe } from '../../../shared/http/identifiers.js';
import { setCreatedLocation } from '../../../shared/http/location.js';
import { platformPath } from '../../../shared/http/surfaces.js';
import type { Tenant } from '../../../shared/tenancy/tenant.js';
import { CurrentTenant, RequireScopes } from '../../identity/index.js';
import { WebhookEndpointsService } from '../application/webhook-endpoints.service.js';
import type { DeliveryRecord } from '../domain/webhook-delivery.repository.js';
import type { WebhookEndpoint } from '../domain/webhook-endpoint.repository.js';
import {
  CreateWebhookEndpointDto,
  DeliveriesQueryDto,
  RedeliveryDto,
  RotatedWebhookSecretDto,
  WebhookDeliveryDto,
  WebhookDeliveryListDto,
  WebhookEndpointDto,
  WebhookEndpointListDto,
  WebhookEndpointWithSecretDto,
} from './webhooks.dto.js';
import { TakesIdempotencyKey } from '../../idempotency/index.js';

const DEFAULT_DELIVERIES_LIMIT = 50;

/** Answers that carry a signing secret: no cache or proxy on the way may keep a copy. */
const SECRET_ANSWER = 'no-store';

/** Webhook management (DECISIONS 16): the caller's partner and environment only; others' ids answer 404. */
@ApiTags('Platform: webhooks')
@Controller(platformPath())
export class WebhooksController {
  constructor(private readonly endpoints: WebhookEndpointsService) {}

  @Post('webhook-endpoints')
  @TakesIdempotencyKey()
  @Header('Cache-Control', SECRET_ANSWER)
  @RequireScopes('platform:webhooks:manage')
  @Extension()
  @ApiOperation({
    summary: 'Register an endpoint that receives events',
    description: 'The answer carries the signing secret, shown this once. Deliveries follow the Standard Webhooks specification.',
  })
  @ApiCreatedResponse({ type: WebhookEndpointWithSecretDto })
  @ApiBadRequestResponse({ type: ErrorBodyDto, description: 'invalid_request: url refused (not https, not public, not port 443 or 8443) or events invalid' })
  @ApiConflictResponse({ type: ErrorBodyDto, description: 'endpoint_limit_reached: the environment already has 10 endpoints' })
  async create(
    @CurrentTenant() tenant: Tenant,
    @Body() body: CreateWebhookEndpointDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<WebhookEndpointWithSecretDto> {
    const { endpoint, secret } = await this.endpoints.create(tenant, body.url, body.events);
    setCreatedLocation(reply, endpoint.id);
    return { ...toDto(endpoint), secret };
  }

  @Get('webhook-endpoints')
  @RequireScopes('platform:webhooks:manage')
  @Extension()
  @ApiOperation({
    summary: 'List the registered endpoints (without their secrets)',
    description: "The endpoints of the token's environment, oldest first; a secret is shown only when it is created or rotated.",
  })
  @ApiOkResponse({ type: WebhookEndpointListDto })
  async list(@CurrentTenant() tenant: Tenant): Promise<WebhookEndpointListDto> {
    return { data: (await this.endpoints.list(tenant)).map(toDto) };
  }

  @Delete('webhook-endpoints/:id')
  @TakesIdempotencyKey()
  @HttpCode(204)
  @RequireScopes('platform:webhooks:manage')
  @Extension()
  @ApiOperation({ summary: 'Delete an endpoint', description: 'Its pending deliveries and its delivery log go with it.' })
  @ApiNoContentResponse()
  @ApiNotFoundResponse({ type: ErrorBodyDto, description: 'not_found' })
  async remove(@CurrentTenant() tenant: Tenant, @Param('id', uuidPipe('webhook endpoint')) id: string): Promise<void> {
    await this.endpoints.remove(tenant, id);
  }

  @Post('webhook-endpoints/:id/rotate-secret')
  @TakesIdempotencyKey()
  @HttpCode(200)
  @Header('Cache-Control', SECRET_ANSWER)
  @RequireScopes('platform:webhooks:manage')
  @Extension()
  @ApiOperation({
    summary: "Replace an endpoint's signing secret",
    description:
      'The new secret is shown this once. For 24 hours deliveries are signed with both secrets (space-separated signatures), so the receiver can switch without losing a delivery.',
  })
  @ApiOkResponse({ type: RotatedWebhookSecretDto })
  @ApiNotFoundResponse({ type: ErrorBodyDto, description: 'not_found' })
  async rotateSecret(@CurrentTenant() tenant: Tenant, @Param('id', uuidPipe('webhook endpoint')) id: string): Promise<RotatedWebhookSecretDto> {
    const { endpoint, secret, previousSecretExpiresAt } = await this.endpoints.rotateSecret(tenant, id);
    return { ...toDto(endpoint), secret, previous_secret_expires_at: previousSecretExpiresAt.toISOString() };
  }

  @Get('webhook-endpoints/:id/deliveries')
  @RequireScopes('platform:webhooks:manage')
  @Extension()
  @ApiOperation({
    summary: "An endpoint's deliveries, most recent first, each with its attempts",
    description:
      'Each attempt with its status code or failure category (timeout, connection_refused, tls, dns, http_status), duration and time; filter by status.',
  })
  @ApiOkResponse({ type: WebhookDeliveryListDto })
  @ApiBadRequestResponse({ type: ErrorBodyDto, description: 'invalid_request: status or limit invalid' })
  @ApiNotFoundResponse({ type: ErrorBodyDto, description: 'not_found' })
  async deliveries(
    @CurrentTenant() tenant: Tenant,
    @Param('id', uuidPipe('webhook endpoint')) id: string,
    @Query() query: DeliveriesQueryDto,
  ): Promise<WebhookDeliveryListDto> {
    const deliveries = await this.endpoints.deliveriesOf(tenant, id, { status: query.status, limit: query.limit ?? DEFAULT_DELIVERIES_LIMIT });
    return { data: deliveries.map(toDeliveryDto) };
  }

  @Post('webhook-events/:event_id/redeliver')
  @TakesIdempotencyKey()
  @HttpCode(202)
  @RequireScopes('platform:webhooks:manage')
  @Extension()
  @ApiOperation({
    summary: 'Send an event again',
    description:
      'To every endpoint subscribed to its type now, with a fresh retry schedule, whatever became of earlier deliveries. An attempt already in flight is not doubled: it is the redelivery to its endpoint.',
  })
  @ApiAcceptedResponse({ type: RedeliveryDto })
  @ApiNotFoundResponse({ type: ErrorBodyDto, description: 'not_found' })
  @ApiConflictResponse({ type: ErrorBodyDto, description: 'conflict: no endpoint subscribes to the event type' })
  async redeliver(@CurrentTenant() tenant: Tenant, @Param('event_id', uuidPipe('webhook event')) eventId: string): Promise<RedeliveryDto> {
    return { event_id: eventId, endpoint_ids: await this.endpoints.redeliver(tenant, eventId) };
  }
}

function toDto(endpoint: WebhookEndpoint): WebhookEndpointDto {
  return { id: endpoint.id, url: endpoint.url, events: endpoint.eventTypes, created_at: endpoint.createdAt.toISOString() };
}

function toDeliveryDto(delivery: DeliveryRecord): WebhookDeliveryDto {
  return {
    event_id: delivery.eventId,
    event_type: delivery.eventType,
    status: delivery.status,
    next_attempt_at: delivery.nextAttemptAt?.toISOString() ?? null,
    created_at: delivery.createdAt.toISOString(),
    attempts: delivery.attempts.map((attempt) => ({
      status_code: attempt.statusCode,
      duration_ms: attempt.durationMs,
      error: attempt.failure,
      attempted_at: attempt.attemptedAt.toISOString(),
    })),
  };
}
