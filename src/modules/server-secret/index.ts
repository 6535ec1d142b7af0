export { ServerSecretModule } from './server-secret.module.js';
export { SecretRotationService, type RotationResult } from './application/secret-rotation.service.js';
export { SecretStatusService, type SecretStatus } from './application/secret-status.service.js';
