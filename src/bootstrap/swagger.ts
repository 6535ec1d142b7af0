import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
import type { AppConfig } from '../config/app-config.js';
import { SCOPES, type Scope } from '../modules/identity/index.js';
import { EXTENSIONS_TAG } from '../shared/http/extension.decorator.js';
import { ErrorBodyDto } from '../shared/http/error-body.dto.js';
import { refineDocument, type DocumentedIssuer } from '../shared/http/openapi/index.js';
import { surfaceOf } from '../shared/http/surfaces.js';
import { addWebhooks } from './openapi-webhooks.js';

/** What each scope grants, for the Authorize dialog and generated clients. */
const SCOPE_DESCRIPTIONS = {
  'platform:entitlements:write': 'Grant, change and revoke entitlements',
  'platform:subscribers:read': "Read a subscriber's entitlement status and export its data",
  'platform:subscribers:erase': "Erase a subscriber's data (not granted unless asked for)",
  'platform:billing:read': 'Read billing usage',
  'platform:webhooks:manage': 'Manage webhook endpoints and read the event feed',
  'textapp:catalog:read': 'Read the catalog and chapter listings',
  'textapp:content:read': 'Read chapter text',
  'textapp:progress:read': 'Read reading progress and endings state',
  'textapp:progress:write': 'Open and remove novels, choose endings',
  'textapp:analytics:read': 'Read the engagement report',
  'audioapp:audio:read': 'Stream and download narration',
  'audioapp:playback:read': 'Read playback positions',
  'audioapp:playback:write': 'Write playback positions',
  'audioapp:voices:read': 'List the voices',
  'kidsapp:engagement:read': "Read the children's engagement summary",
} as const satisfies Record<Scope, string>;

const KIDS_SCOPES: readonly Scope[] = ['kidsapp:engagement:read'];

const scopeDescriptions = (scopes: readonly Scope[]) => Object.fromEntries(scopes.map((scope) => [scope, SCOPE_DESCRIPTIONS[scope]]));

const ISSUERS: readonly DocumentedIssuer[] = [
  {
    scheme: 'platform',
    description:
      "Tokens of the partner platform issuer: the platform, the text and audio service (live and sandbox), and the children's service when they carry kidsapp:engagement:read.",
    tokenPath: '/platform/v1/oauth2/token',
    scopes: scopeDescriptions(SCOPES),
    serves: () => true,
  },
  {
    scheme: 'kids',
    description: "Tokens of the children's service issuer (scope kidsapp:engagement:read); other services refuse them.",
    tokenPath: '/kids/v1/oauth2/token',
    scopes: scopeDescriptions(KIDS_SCOPES),
    serves: (path) => surfaceOf(path) === 'kids',
  },
];

const DESCRIPTION = [
  "Serialized interactive novels, in text and narrated audio, for partners' subscribers.",
  '',
  "Mounts: `/v1` text and audio service (live data), `/sandbox/v1` the same endpoints over sandbox data (operations named `sandbox…`), `/platform/v1` partner platform (tokens, entitlements, billing, webhooks), `/kids/v1` children's engagement service.",
  '',
  "Press **Authorize**, enter a credential's client_id and client_secret under `platform` (or `kids` for the children's service), tick the scopes, and Swagger UI gets the token itself (client credentials, HTTP Basic). An operation accepts a token holding any one of the scopes it lists.",
  '',
  `Endpoints and fields beyond the partner contract are tagged **${EXTENSIONS_TAG}** and carry \`x-extension: true\`; they are listed after the contract's.`,
  '',
  'Every error answers `{"error": CODE, "error_description": TEXT}`, and every answer carries `x-request-id`.',
].join('\n');

/** The OpenAPI document of the mounted surfaces, as served at /docs/openapi.json. */
export function openApiDocument(app: INestApplication, config: AppConfig): OpenAPIObject {
  const builder = new DocumentBuilder()
    .setOpenAPIVersion('3.1.0')
    .setTitle('Partner Reading and Listening API')
    .setDescription(DESCRIPTION)
    .setVersion('1.0.0')
    .setLicense('Proprietary: partner agreement', `${config.publicBaseUrl}/docs`)
    // Relative: requests and the Authorize dialog's token calls go to the origin the
    // document was loaded from, whichever name the service is reached by.
    .addServer('/', 'This service')
    .build();
  const document = SwaggerModule.createDocument(app, builder, { extraModels: [ErrorBodyDto] });
  document.paths = Object.fromEntries(
    Object.entries(document.paths).filter(([path]) => {
      const surface = surfaceOf(path);
      return !surface || config.mounts(surface);
    }),
  );
  refineDocument(
    document,
    ISSUERS.filter((issuer) => config.mounts(issuer.scheme === 'kids' ? 'kids' : 'platform')),
  );
  if (config.mounts('platform')) addWebhooks(document);
  return document;
}

/** Swagger UI at /docs and the OpenAPI document at /docs/openapi.json, for the mounted surfaces. */
export function setupSwagger(app: INestApplication, config: AppConfig): void {
  SwaggerModule.setup('docs', app, () => openApiDocument(app, config), {
    jsonDocumentUrl: 'docs/openapi.json',
    yamlDocumentUrl: 'docs/openapi.yaml',
    swaggerOptions: { persistAuthorization: true, displayRequestDuration: true },
    customSiteTitle: 'Partner Reading and Listening API',
  });
}
