import { applyDecorators } from '@nestjs/common';
import { ApiExtension, ApiProperty, type ApiPropertyOptions, ApiTags } from '@nestjs/swagger';

export const EXTENSIONS_TAG = 'Extensions';

/**
 * Marks an endpoint the contract does not declare (DECISIONS: [ext]). It is listed under
 * the "Extensions" tag as well as its own, and carries `x-extension: true`.
 */
export const Extension = () => applyDecorators(ApiTags(EXTENSIONS_TAG), ApiExtension('x-extension', true));

/**
 * Documents a field the contract does not declare, inside a contract shape: the schema
 * property carries `x-extension: true` so generated clients and readers can tell it apart.
 * (Nest's typings omit `x-` keys from property options, though the document keeps them.)
 */
export const ExtensionProperty = (options: ApiPropertyOptions) => {
  const marked: Record<string, unknown> = { ...options, 'x-extension': true };
  return ApiProperty(marked as ApiPropertyOptions);
};
