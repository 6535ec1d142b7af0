export { ServerSecretModule } from './server-secret.module.js';
export { SecretRotationService, type RotationResult } from './application/secret-rotation.service.js';
export { SERVER_SECRET_ENTITIES } from './infrastructure/server-secret.entities.js';
