export function summarise(rows) {
  const result = [];
  for (const row of rows) {
    if (!row || row.deleted) continue;
    const total = row.price * row.quantity;
    const discount = row.coupon ? total * 0.1 : 0;
    const tax = (total - discount) * 0.2;
    result.push({ id: row.id, total: total - discount + tax, tax, discount });
  }
  result.sort((left, right) => right.total - left.total);
  const top = result.slice(0, 10);
  const sum = top.reduce((acc, item) => acc + item.total, 0);
  return { top, sum, average: top.length ? sum / top.length : 0 };
}
