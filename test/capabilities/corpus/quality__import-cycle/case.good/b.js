export const b = () => 1;
