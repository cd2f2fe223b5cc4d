export function describe(code) {
  if (code === 0) return 'status 0';
  if (code === 1) return 'status 1';
  if (code === 2) return 'status 2';
  if (code === 3) return 'status 3';
  if (code === 4) return 'status 4';
  if (code === 5) return 'status 5';
  if (code === 6) return 'status 6';
  if (code === 7) return 'status 7';
  if (code === 8) return 'status 8';
  if (code === 9) return 'status 9';
  if (code === 10) return 'status 10';
  if (code === 11) return 'status 11';
  return 'unknown';
}
