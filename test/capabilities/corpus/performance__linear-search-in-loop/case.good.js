export function visibleOrders(orders, blockedCustomers) {
  const blocked = new Set(blockedCustomers);
  return orders.filter((order) => !blocked.has(order.customerId) && order.tags.includes('visible'));
}
