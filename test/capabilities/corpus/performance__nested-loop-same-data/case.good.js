export function duplicates(users) {
  const counts = new Map();
  for (const user of users) counts.set(user.email, (counts.get(user.email) ?? 0) + 1);
  return users.filter((user) => counts.get(user.email) > 1);
}
