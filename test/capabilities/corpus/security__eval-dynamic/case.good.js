export function makeComparator(field) {
  return (a, b) => a[field] - b[field];
}
