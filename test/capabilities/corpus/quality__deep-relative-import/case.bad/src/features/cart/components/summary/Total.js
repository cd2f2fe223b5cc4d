import { money } from '../../../../shared/money.js';
export const total = (cents) => money(cents);
