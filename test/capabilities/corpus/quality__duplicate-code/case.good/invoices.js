import { summarise } from './summary.js';
export const summariseInvoices = (rows) => summarise(rows);
