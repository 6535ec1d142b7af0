import { Controller, Get, Header, Inject } from '@nestjs/common';
import { ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { AppConfig } from '../../../config/app-config.js';
import { ApiError } from '../../../shared/errors/api-error.js';
import { ErrorBodyDto } from '../../../shared/http/error-body.dto.js';
import { Extension } from '../../../shared/http/extension.decorator.js';
import { MOUNTS } from '../../../shared/http/surfaces.js';
import { issuerMetadata, METADATA_PATH_PREFIX, type IssuerMetadata } from '../domain/issuer-metadata.js';
import { SCOPES } from '../domain/scopes.js';
import type { TokenIssuer } from '../domain/token-issuers.js';
import { Public } from './access.decorators.js';

class IssuerMetadataDto implements IssuerMetadata {
  @ApiProperty({ format: 'uri', example: 'http://localhost:3000/platform/v1' }) issuer: string;
  @ApiProperty({ format: 'uri' }) token_endpoint: string;
  @ApiProperty({ format: 'uri' }) jwks_uri: string;
  @ApiProperty({ type: [String], example: ['client_credentials'] }) grant_types_supported: ['client_credentials'];
  @ApiProperty({ type: [String], example: ['client_secret_basic', 'client_secret_post'] })
  token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'];
  @ApiProperty({ type: [String], enum: SCOPES }) scopes_supported: IssuerMetadata['scopes_supported'];
  @ApiProperty({
    type: [String],
    example: [],
    description: 'Empty: the client credentials grant uses no authorization endpoint, so no response type has a flow here.',
  })
  response_types_supported: [];
}

/**
 * OAuth 2.0 authorization server metadata (RFC 8414, DECISIONS 26), so that OAuth libraries
 * configure themselves from an issuer URL. Served for the issuers this process mounts.
 */
@ApiTags('Platform: tokens and keys')
@Controller(METADATA_PATH_PREFIX)
export class DiscoveryController {
  constructor(@Inject(AppConfig) private readonly config: AppConfig) {}

  @Get(MOUNTS.platform)
  @Public()
  @Extension()
  @Header('Cache-Control', 'public, max-age=300')
  @ApiOperation({
    summary: 'Metadata of the platform token issuer (RFC 8414)',
    description: 'Where OAuth libraries (openid-client and the like) find the token endpoint, the key set and the scopes from the issuer URL alone.',
  })
  @ApiOkResponse({ type: IssuerMetadataDto })
  @ApiNotFoundResponse({ type: ErrorBodyDto, description: 'not_found: this process does not serve the platform' })
  platform(): IssuerMetadata {
    return this.metadataOf('platform');
  }

  @Get(MOUNTS.kids)
  @Public()
  @Extension()
  @Header('Cache-Control', 'public, max-age=300')
  @ApiOperation({
    summary: "Metadata of the children's service token issuer (RFC 8414)",
    description: "As the platform's, for the children's service issuer and its one scope.",
  })
  @ApiOkResponse({ type: IssuerMetadataDto })
  @ApiNotFoundResponse({ type: ErrorBodyDto, description: "not_found: this process does not serve the children's service" })
  kids(): IssuerMetadata {
    return this.metadataOf('kids');
  }

  private metadataOf(issuer: TokenIssuer): IssuerMetadata {
    if (!this.config.mounts(issuer)) throw new ApiError('not_found', `This process does not serve the ${issuer} issuer.`);
    return issuerMetadata(this.config.publicBaseUrl, issuer);
  }
}
