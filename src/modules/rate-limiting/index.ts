export { RateLimitingModule } from './rate-limiting.module.js';
export { RateLimiter } from './application/rate-limiter.service.js';
