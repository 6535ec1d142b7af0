import { applyDecorators } from '@nestjs/common';
import { ApiExtension, ApiTags } from '@nestjs/swagger';

export const EXTENSIONS_TAG = 'Extensions';

/**
 * Marks an endpoint the contract does not declare (DECISIONS: [ext]). It is listed under
 * the "Extensions" tag as well as its own, and carries `x-extension: true`.
 */
export const Extension = () => applyDecorators(ApiTags(EXTENSIONS_TAG), ApiExtension('x-extension', true));
