const resultCache = new Map();
const maxEntries = 500;
export function render(key, compute) {
  if (!resultCache.has(key)) {
    if (resultCache.size >= maxEntries) resultCache.delete(resultCache.keys().next().value);
    resultCache.set(key, compute(key));
  }
  return resultCache.get(key);
}
