// Loads the product list from the shop API.
import { useEffect, useState } from 'react';
import type { Product } from '../types';

export function useProducts(apiUrl: string): { products: Product[]; error: string | null } {
  const [products, setProducts] = useState<Product[]>([]);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    const controller = new AbortController();
    fetch(`${apiUrl}/products`, { signal: controller.signal })
      .then((response) => response.json() as Promise<Product[]>)
      .then(setProducts)
      .catch((reason: unknown) => setError(String(reason)));
    return () => controller.abort();
  }, [apiUrl]);

  return { products, error };
}
