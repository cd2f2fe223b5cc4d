const resultCache = new Map();
export function render(key, compute) {
  if (!resultCache.has(key)) resultCache.set(key, compute(key));
  return resultCache.get(key);
}
