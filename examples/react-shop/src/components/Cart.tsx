// The cart summary: lines, total, and a note the shop owner can format.
import { useEffect, useState } from 'react';
import type { CartLine, Product } from '../types';

export interface CartProps {
  lines: CartLine[];
  products: Product[];
  promoHtml: string;
}

export function Cart({ lines, products, promoHtml }: CartProps) {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    setInterval(() => setNow(Date.now()), 1000);
  });
  let total = 0;
  for (const line of lines) {
    const product = products.find((candidate) => candidate.id === line.productId);
    if (product) total += product.priceCents * line.quantity;
  }
  return (
    <aside>
      <p>{lines.length} items, {(total / 100).toFixed(2)} €</p>
      <div dangerouslySetInnerHTML={{ __html: promoHtml }} />
      <small>Updated {new Date(now).toLocaleTimeString()}</small>
    </aside>
  );
}
