// The storefront: catalogue and cart.
import { useState } from 'react';
import { Cart } from './components/Cart';
import { ProductList } from './components/ProductList';
import { useProducts } from './hooks/useProducts';
import type { CartLine } from './types';

const apiUrl = import.meta.env.VITE_API_URL ?? 'http://localhost:3000';

export function App() {
  const { products, error } = useProducts(apiUrl);
  const [lines, setLines] = useState<CartLine[]>([]);
  const add = (productId: string) =>
    setLines((current) => [...current, { productId, quantity: 1 }]);
  if (error) return <p role="alert">{error}</p>;
  return (
    <main>
      <ProductList products={products} selectedTags={[]} onAdd={add} />
      <Cart lines={lines} products={products} promoHtml="<b>Free shipping</b> over 50 €" />
    </main>
  );
}
