export function summarise(orders) {
  const totals = {};
  for (const order of orders) {
    if (order.status === 'paid' || order.status === 'shipped') {
      for (const line of order.lines) {
        if (line.quantity > 0 && !line.refunded) {
          if (totals[line.sku]) {
            totals[line.sku] += line.quantity;
          } else if (line.sku) {
            totals[line.sku] = line.quantity;
          } else {
            continue;
          }
        }
      }
    } else if (order.status === 'cancelled') {
      continue;
    }
  }
  return totals;
}
