/** One chapter-text read or one playback-position write (DECISIONS 14). */
export interface ReadingActivity {
  subscriberId: string;
  novelId: string;
  chapterNumber: number;
  kind: 'text' | 'audio';
  occurredAt: Date;
}
