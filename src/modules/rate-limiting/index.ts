export { RateLimitingModule } from './rate-limiting.module.js';
export { RateLimiter } from './application/rate-limiter.service.js';
export { RATE_LIMIT_ENTITIES } from './infrastructure/rate-limit.entities.js';
