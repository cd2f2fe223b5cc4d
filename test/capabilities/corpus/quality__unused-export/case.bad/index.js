import { format } from './format.js';
console.log(format(1));
