import { ApiProperty } from '@nestjs/swagger';

export class VoiceDto {
  @ApiProperty({ example: 'pt-br-narrator-1' }) voice_id: string;
  @ApiProperty({ example: 'Narrator 1' }) name: string;
  @ApiProperty({ description: 'Language tag.', example: 'pt-BR' }) language: string;
  @ApiProperty({ format: 'uri' }) sample_url: string;
}

export class VoiceListDto {
  @ApiProperty({ type: [VoiceDto], description: 'Always empty today: there is no voice catalog yet.', example: [] })
  voices: VoiceDto[];
}
