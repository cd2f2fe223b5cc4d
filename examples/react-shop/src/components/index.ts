// The components' public surface.
export { Cart } from './Cart';
export { ProductCard } from './ProductCard';
export { ProductList } from './ProductList';
