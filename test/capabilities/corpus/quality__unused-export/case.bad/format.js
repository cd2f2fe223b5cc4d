export function format(value) {
  return `#${value}`;
}
export function legacyFormat(value) {
  return String(value);
}
