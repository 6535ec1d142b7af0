/** A subscriber's listening position in a novel: one per (subscriber, novel) (contract 2, DECISIONS 12). */
export interface PlaybackPosition {
  novelId: string;
  chapterNumber: number;
  positionSeconds: number;
  updatedAt: Date;
}

export const MAX_POSITION_SECONDS = 86_400;
