import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsDefined, IsString, Length } from 'class-validator';
import { IsSubscriberId } from '../../../shared/http/identifiers.js';
import type { EndingsState } from '../application/endings.service.js';

export class ChooseEndingDto {
  @ApiProperty({ example: 'sub-42' })
  @IsDefined({ message: 'subscriber_id is required' })
  @IsString({ message: 'subscriber_id must be a string' })
  @IsSubscriberId()
  subscriber_id: string;

  @ApiProperty({ example: 'stay' })
  @IsDefined({ message: 'choice_id is required' })
  @IsString({ message: 'choice_id must be a string' })
  @Length(1, 100, { message: 'choice_id must be 1 to 100 characters' })
  choice_id: string;
}

export class ChoiceDto {
  @ApiProperty() choice_id: string;
  @ApiProperty({ description: 'May be a spoiler, hence gated.' }) label: string;
  @ApiProperty() ending: string;
  @ApiProperty({ type: 'integer' }) sort_order: number;
}

export class EndingsStateDto {
  @ApiProperty() novel_id: string;
  @ApiProperty({ description: 'false until the last chapter is released for the subscriber.' }) available: boolean;
  @ApiPropertyOptional({ description: 'Absent while none is chosen.' }) chosen_choice_id?: string;
  @ApiProperty({ type: [ChoiceDto], description: 'Empty while available is false.' }) choices: ChoiceDto[];
}

export const endingsStateDto = (state: EndingsState): EndingsStateDto => ({
  novel_id: state.novelId,
  available: state.available,
  ...(state.chosenChoiceId !== null && { chosen_choice_id: state.chosenChoiceId }),
  choices: state.choices.map((e) => ({ choice_id: e.choiceId, label: e.label, ending: e.ending, sort_order: e.sortOrder })),
});
