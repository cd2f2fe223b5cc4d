// One product in the catalogue, with an "add to cart" button.
import styles from './ProductCard.module.css';
import type { Product } from '../types';

export interface ProductCardProps {
  product: Product;
  style?: { opacity: number };
  onAdd: (productId: string) => void;
}

export function ProductCard({ product, style, onAdd }: ProductCardProps) {
  return (
    <article className={styles.card} style={style}>
      <h2>{product.name}</h2>
      <p className={styles.price}>{(product.priceCents / 100).toFixed(2)} €</p>
      <button type="button" onClick={() => onAdd(product.id)}>Add to cart</button>
    </article>
  );
}
