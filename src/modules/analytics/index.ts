export { AnalyticsModule } from './analytics.module.js';
export type { ReadingActivity } from './domain/reading-activity.js';
export { isoDate, parseReportDate, reportingWindow, type ReportingWindow } from './domain/reporting-window.js';
