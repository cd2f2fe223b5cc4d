export function format(value) {
  return `#${value}`;
}
