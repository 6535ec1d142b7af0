export { PrivacyModule } from './privacy.module.js';
export { SubscriberDataService } from './application/subscriber-data.service.js';
export { subscriberErasureDto } from './http/subscriber-data.dto.js';
