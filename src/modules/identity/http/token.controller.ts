import { Controller, Get, Header, HttpCode, Post, Req, Res } from '@nestjs/common';
import { ApiBadRequestResponse, ApiBody, ApiConsumes, ApiOkResponse, ApiOperation, ApiTags, ApiUnauthorizedResponse } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../../shared/errors/api-error.js';
import { ErrorBodyDto } from '../../../shared/http/error-body.dto.js';
import { kidsPath, platformPath } from '../../../shared/http/surfaces.js';
import { SigningKeyService } from '../application/signing-key.service.js';
import { TokenIssuerService, type TokenResponse } from '../application/token-issuer.service.js';
import { JWKS_MAX_AGE_SECONDS } from '../domain/token-issuers.js';
import { Public } from './access.decorators.js';
import { readTokenRequest } from './token-request.js';
import { TokenRequestBudgets } from './token-request-budgets.js';
import { JwksDto, KidsTokenRequestDto, KidsTokenResponseDto, TokenRequestDto, TokenResponseDto } from './token.dto.js';

const KIDS_SCOPE = 'kidsapp:engagement:read';

@ApiTags('Platform: tokens and keys')
@Controller(platformPath())
export class PlatformTokenController {
  constructor(
    private readonly issuer: TokenIssuerService,
    private readonly keys: SigningKeyService,
    private readonly budgets: TokenRequestBudgets,
  ) {}

  @Post('oauth2/token')
  @Public()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Issue a partner access token (OAuth 2.0 client credentials, RFC 6749 4.4)',
    description:
      'Authenticate with HTTP Basic (preferred) or client_id and client_secret in the form body. The token carries the scopes registered on the credential, or the subset a `scope` parameter asks for (RFC 6749 3.3); a scope the credential does not hold is refused with invalid_scope.',
  })
  @ApiConsumes('application/x-www-form-urlencoded')
  @ApiBody({ type: TokenRequestDto })
  @ApiOkResponse({ type: TokenResponseDto })
  @ApiBadRequestResponse({
    type: ErrorBodyDto,
    description: 'invalid_request, unsupported_grant_type or invalid_scope (a requested scope the credential does not hold)',
  })
  @ApiUnauthorizedResponse({ type: ErrorBodyDto, description: 'invalid_client' })
  async token(@Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<TokenResponse> {
    const { client, form } = readTokenRequest(request, reply);
    // RFC 6749 3.3: a requested scope narrows the token to a subset of the credential's
    // scopes (Swagger UI's Authorize sends the scopes ticked); one it does not hold is
    // refused with invalid_scope rather than silently dropped, as the children's endpoint
    // does. Sent empty, it counts as omitted (3.1): the token carries every scope held.
    const requested = requestedScopes(form.scope);
    return this.budgets.issue(request, reply, client.clientId, () =>
      this.issuer.issue(client, 'platform', requested ? (credential) => grantedSubset(requested, credential.scopes) : undefined),
    );
  }

  @Get('jwks')
  @Public()
  @Header('Cache-Control', `public, max-age=${JWKS_MAX_AGE_SECONDS}`)
  @ApiOperation({
    summary: 'Public keys that verify partner tokens (JWK set)',
    description:
      'The current key and, during a rotation, the next and the previous one. Cache it for its max-age (300 s), and fetch it again when a token names a kid it does not list.',
  })
  @ApiOkResponse({ type: JwksDto })
  jwks() {
    return this.keys.jwks('platform');
  }
}

@ApiTags('Children: engagement')
@Controller(kidsPath())
export class KidsTokenController {
  constructor(
    private readonly issuer: TokenIssuerService,
    private readonly keys: SigningKeyService,
    private readonly budgets: TokenRequestBudgets,
  ) {}

  @Post('oauth2/token')
  @Public()
  @HttpCode(200)
  @ApiOperation({
    summary: "Issue a children's service token (client credentials with scope kidsapp:engagement:read)",
    description: "Signed with the children's service's own key pair; other services refuse these tokens.",
  })
  @ApiConsumes('application/x-www-form-urlencoded')
  @ApiBody({ type: KidsTokenRequestDto })
  @ApiOkResponse({ type: KidsTokenResponseDto })
  @ApiBadRequestResponse({ type: ErrorBodyDto, description: 'invalid_request, unsupported_grant_type or invalid_scope' })
  @ApiUnauthorizedResponse({ type: ErrorBodyDto, description: 'invalid_client' })
  async token(@Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<TokenResponse> {
    const { client, form } = readTokenRequest(request, reply);
    if (form.scope !== KIDS_SCOPE) {
      throw new ApiError('invalid_scope', `scope must be ${KIDS_SCOPE}.`);
    }
    return this.budgets.issue(request, reply, client.clientId, () =>
      this.issuer.issue(client, 'kids', (credential) => {
        if (!credential.scopes.includes(KIDS_SCOPE)) throw new ApiError('invalid_scope', `This credential does not hold ${KIDS_SCOPE}.`);
        return [KIDS_SCOPE];
      }),
    );
  }

  @Get('jwks')
  @Public()
  @Header('Cache-Control', `public, max-age=${JWKS_MAX_AGE_SECONDS}`)
  @ApiOperation({
    summary: "Public keys that verify children's service tokens (JWK set)",
    description: "The children's service issuer's keys, rotated as the platform's are. Cache it for its max-age (300 s).",
  })
  @ApiOkResponse({ type: JwksDto })
  jwks() {
    return this.keys.jwks('kids');
  }
}

/** The scopes a token request asks for, or null when it asks for none (absent or empty). */
function requestedScopes(scope: unknown): string[] | null {
  if (scope === undefined) return null;
  if (typeof scope !== 'string') throw new ApiError('invalid_scope', 'scope must be given once, as space-separated scope names.');
  const names = scope.split(' ').filter((name) => name !== '');
  return names.length === 0 ? null : [...new Set(names)];
}

function grantedSubset(requested: string[], held: readonly string[]): string[] {
  const missing = requested.filter((name) => !held.includes(name));
  if (missing.length > 0) {
    throw new ApiError('invalid_scope', `This credential does not hold ${missing.join(', ')}: ask for a subset of its scopes, or for none to get them all.`);
  }
  return requested;
}
