export {
  DRIP_TIME_ZONE,
  EARLY_ACCESS_MS,
  RELEASE_HOUR,
  chapterReleaseAt,
  dripSchedule,
  releaseCutoff,
  releaseDay,
  releaseInstantOfDay,
  releasedChapterCount,
  type DripInput,
} from './domain/drip-rule.js';
