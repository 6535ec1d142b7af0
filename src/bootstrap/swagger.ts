import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
import type { AppConfig } from '../config/app-config.js';
import { EXTENSIONS_TAG } from '../shared/http/extension.decorator.js';
import { ErrorBodyDto } from '../shared/http/error-body.dto.js';
import { surfaceOf } from '../shared/http/surfaces.js';

/** Swagger UI at /docs and the OpenAPI document at /docs/openapi.json, for the mounted surfaces. */
export function setupSwagger(app: INestApplication, config: AppConfig): void {
  const builder = new DocumentBuilder()
    .setTitle('Partner Reading and Listening API')
    .setDescription(
      [
        'Serialized interactive novels, in text and narrated audio, for partners\' subscribers.',
        '',
        'Mounts: `/v1` text and audio service (live data), `/sandbox/v1` the same endpoints over sandbox data, `/platform/v1` partner platform (tokens, entitlements, billing, webhooks), `/kids/v1` children\'s engagement service.',
        '',
        'Get a token from `POST /platform/v1/oauth2/token` (client credentials), then press **Authorize** and paste it. Each operation lists the scopes it needs under `x-required-scopes` (any one of them suffices).',
        '',
        `Endpoints and fields beyond the partner contract are tagged **${EXTENSIONS_TAG}** and carry \`x-extension: true\`.`,
        '',
        'Every error answers `{"error": CODE, "error_description": TEXT}`.',
      ].join('\n'),
    )
    .setVersion('1.0.0')
    .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'Access token from POST /platform/v1/oauth2/token' }, 'bearer')
    .addTag(EXTENSIONS_TAG, 'Endpoints and shapes beyond the partner contract (DECISIONS.md)')
    .build();
  const documentFactory = (): OpenAPIObject => {
    const document = SwaggerModule.createDocument(app, builder, { extraModels: [ErrorBodyDto] });
    document.paths = Object.fromEntries(
      Object.entries(document.paths).filter(([path]) => {
        const surface = surfaceOf(path);
        return !surface || config.mounts(surface);
      }),
    );
    return document;
  };
  SwaggerModule.setup('docs', app, documentFactory, {
    jsonDocumentUrl: 'docs/openapi.json',
    yamlDocumentUrl: 'docs/openapi.yaml',
    swaggerOptions: { persistAuthorization: true, displayRequestDuration: true },
    customSiteTitle: 'Partner Reading and Listening API',
  });
}
