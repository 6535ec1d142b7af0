import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ExtensionProperty } from '../../../shared/http/extension.decorator.js';

export class TokenRequestDto {
  @ApiProperty({ enum: ['client_credentials'] }) grant_type: string;
  @ApiPropertyOptional({ description: 'Only when HTTP Basic is not used (Basic is preferred).', example: '' }) client_id?: string;
  @ApiPropertyOptional({ description: 'Only when HTTP Basic is not used (Basic is preferred).', example: '' }) client_secret?: string;
}

export class KidsTokenRequestDto extends TokenRequestDto {
  @ApiProperty({ enum: ['kidsapp:engagement:read'] }) scope: string;
}

class TokenFieldsDto {
  @ApiProperty({ description: 'Signed service JWT (ES256).' }) access_token: string;
  @ApiProperty({ example: 'Bearer' }) token_type: string;
  @ApiProperty({ type: 'integer', example: 600 }) expires_in: number;
}

export class TokenResponseDto extends TokenFieldsDto {
  @ExtensionProperty({
    example: 'textapp:catalog:read textapp:progress:read',
    description: "[extension] The scopes the token carries, space separated: the credential's (RFC 6749 section 5.1).",
  })
  scope: string;
}

export class KidsTokenResponseDto extends TokenFieldsDto {
  @ApiProperty({ example: 'kidsapp:engagement:read' }) scope: string;
}

export class JwksDto {
  @ApiProperty({ type: 'array', items: { type: 'object', additionalProperties: true }, description: 'ES256 public keys (JWK).' })
  keys: Record<string, unknown>[];
}
