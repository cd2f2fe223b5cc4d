import { a } from './a.js';
export const b = () => (typeof a === 'function' ? 1 : 0);
