import { createCipheriv, randomBytes } from 'node:crypto';
export const encrypt = (key, data) => createCipheriv('aes-256-gcm', key, randomBytes(12)).update(data);
