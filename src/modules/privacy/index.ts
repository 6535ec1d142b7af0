export { PrivacyModule } from './privacy.module.js';
export { erasureDocument, SubscriberDataService } from './application/subscriber-data.service.js';
