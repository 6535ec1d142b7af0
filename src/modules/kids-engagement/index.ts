export { KidsEngagementModule } from './kids-engagement.module.js';
export { KidsActivityImporter } from './application/kids-activity-importer.service.js';
export { KidsImportIntoFixedMonths, KidsImportRejected } from './domain/kids-activity.js';
export { SETTLEMENT_HOURS } from './application/kids-month-window.js';
