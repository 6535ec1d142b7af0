import { ApiProperty } from '@nestjs/swagger';

/** The contract's error body (section 7), for the OpenAPI document. */
export class ErrorBodyDto {
  @ApiProperty({ example: 'invalid_request' }) error: string;
  @ApiProperty({ example: 'subscriber_id must be 1 to 128 characters of A-Z a-z 0-9 . _ : @ -' })
  error_description: string;
}
