export const money = (cents) => (cents / 100).toFixed(2);
