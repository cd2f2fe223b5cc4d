import { createCipheriv } from 'node:crypto';
export const encrypt = (key, data) => createCipheriv('aes-128-ecb', key, null).update(data);
