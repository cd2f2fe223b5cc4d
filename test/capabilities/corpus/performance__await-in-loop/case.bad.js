export async function fetchAll(urls) {
  const pages = [];
  for (const url of urls) {
    pages.push(await fetch(url));
  }
  return pages;
}
