export { AnalyticsModule } from './analytics.module.js';
export { ActivityRecorder } from './application/activity-recorder.service.js';
export type { ActivitySql, ReadingActivity } from './domain/activity.repository.js';
export { isoDate, parseReportDate, reportingWindow, type ReportingWindow } from './domain/reporting-window.js';
