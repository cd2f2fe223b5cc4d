// Whole numbers with a comma between thousands (75,260), as en-US writes them, without Intl: the first toLocaleString of a
// process loads ICU's locale data, which cost `cadre -c /status` 20-100 ms of its start.

/** 75260 → "75,260"; a number that is not a whole number is written as toLocaleString('en-US') writes it. */
export function thousands(value: number): string {
  if (!Number.isSafeInteger(value)) return value.toLocaleString('en-US');
  const digits = String(Math.abs(value)).replace(/\B(?=(\d{3})+$)/g, ',');
  return value < 0 ? `-${digits}` : digits;
}
