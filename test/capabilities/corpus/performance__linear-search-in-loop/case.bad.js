export function visibleOrders(orders, blockedCustomers) {
  return orders.filter((order) => !blockedCustomers.includes(order.customerId));
}
