export { ServerSecretModule } from './server-secret.module.js';
export { SecretRotationService, type RotationResult } from './application/secret-rotation.service.js';
