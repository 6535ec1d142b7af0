import { Controller, Get } from '@nestjs/common';
import { ApiBadRequestResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
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
  list(): VoiceListDto {
    return { voices: [] };
  }
}
