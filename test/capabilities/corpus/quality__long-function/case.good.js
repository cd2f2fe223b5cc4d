export function buildReport(data) {
  return Array.from({ length: 70 }, (_, index) => `line ${index}: ${String(data[index] ?? '')}`).join('\n');
}
