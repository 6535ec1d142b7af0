import { Controller, Get, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { invalidRequest } from '../../../shared/errors/api-error.js';
import { ErrorBodyDto } from '../../../shared/http/error-body.dto.js';
import { readingPaths } from '../../../shared/http/surfaces.js';
import { RequireScopes } from '../../identity/index.js';
import { VoiceListDto } from './voices.dto.js';

@ApiTags('Audio')
@Controller(readingPaths('voices'))
export class VoicesController {
  @Get()
  @RequireScopes('audioapp:voices:read')
  @ApiOperation({
    summary: 'Voice catalog (roadmap)',
    description: 'Narration today is one pre-recorded voice per chapter; selectable voices are roadmap, so the list is empty.',
  })
  @ApiOkResponse({ type: VoiceListDto })
  @ApiBadRequestResponse({ type: ErrorBodyDto, description: 'invalid_request: the endpoint takes no query parameters' })
  list(@Query() query: Record<string, unknown>): VoiceListDto {
    // No DTO to validate against, so unknown parameters are refused here, as everywhere.
    const unknown = Object.keys(query);
    if (unknown.length > 0) throw invalidRequest(`Unknown query parameter: ${unknown.join(', ')}. GET /voices takes no parameters.`);
    return { voices: [] };
  }
}
