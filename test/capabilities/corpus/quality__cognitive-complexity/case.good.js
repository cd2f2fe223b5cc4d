const counted = (order) => order.status === 'paid' || order.status === 'shipped';
const billable = (line) => line.sku && line.quantity > 0 && !line.refunded;

export function summarise(orders) {
  const totals = {};
  const lines = orders.filter(counted).flatMap((order) => order.lines).filter(billable);
  for (const line of lines) totals[line.sku] = (totals[line.sku] ?? 0) + line.quantity;
  return totals;
}
