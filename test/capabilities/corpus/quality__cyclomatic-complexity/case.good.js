const descriptions = new Map([[0, 'status 0'], [1, 'status 1'], [2, 'status 2'], [3, 'status 3'], [4, 'status 4'], [5, 'status 5'], [6, 'status 6'], [7, 'status 7'], [8, 'status 8'], [9, 'status 9'], [10, 'status 10'], [11, 'status 11']]);
export function describe(code) {
  return descriptions.get(code) ?? 'unknown';
}
