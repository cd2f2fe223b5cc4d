export function duplicates(users) {
  const found = [];
  for (const a of users) {
    for (const b of users) {
      if (a !== b && a.email === b.email) found.push(a);
    }
  }
  return found;
}
