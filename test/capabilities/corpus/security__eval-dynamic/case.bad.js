export function makeComparator(field) {
  return new Function('a', 'b', 'return a.' + field + ' - b.' + field);
}
