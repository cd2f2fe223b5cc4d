// The catalogue: filters products by tag and renders a card for each.
import { ProductCard } from './ProductCard';
import type { Product } from '../types';

export interface ProductListProps {
  products: Product[];
  selectedTags: string[];
  onAdd: (productId: string) => void;
}

export function ProductList({ products, selectedTags, onAdd }: ProductListProps) {
  const visible = products.filter((product) => selectedTags.every((tag) => product.tags.includes(tag)));
  return (
    <section>
      {visible.map((product) => (
        <ProductCard key={product.id} product={product} style={{ opacity: 1 }} onAdd={(id) => onAdd(id)} />
      ))}
    </section>
  );
}
