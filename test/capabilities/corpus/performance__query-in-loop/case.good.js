import { prisma } from './db.js';
export async function loadUsers(ids) {
  const users = await prisma.user.findMany({ where: { id: { in: ids } }, take: ids.length });
  const byId = new Map(users.map((user) => [user.id, user]));
  return ids.map((id) => byId.get(id));
}
