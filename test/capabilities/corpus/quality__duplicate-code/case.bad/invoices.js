import { summariseOrders } from './orders.js';

export function summariseInvoices(entrys) {
  const lines = [];
  for (const entry of entrys) {
    if (!entry || entry.deleted) continue;
    const total = entry.price * entry.quantity;
    const discount = entry.coupon ? total * 0.1 : 0;
    const tax = (total - discount) * 0.2;
    lines.push({ id: entry.id, total: total - discount + tax, tax, discount });
  }
  lines.sort((left, right) => right.total - left.total);
  const top = lines.slice(0, 10);
  const sum = top.reduce((acc, item) => acc + item.total, 0);
  return { top, sum, average: top.length ? sum / top.length : 0 };
}
export const audit = summariseOrders;
