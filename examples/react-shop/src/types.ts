// The shop's domain types.
export interface Product {
  id: string;
  name: string;
  priceCents: number;
  tags: string[];
}

export interface CartLine {
  productId: string;
  quantity: number;
}
