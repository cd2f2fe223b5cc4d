import { summarise } from './summary.js';
export const summariseOrders = (rows) => summarise(rows);
