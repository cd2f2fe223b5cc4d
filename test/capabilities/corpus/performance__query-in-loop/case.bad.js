import { prisma } from './db.js';
export async function loadUsers(ids) {
  const users = [];
  for (const id of ids) {
    users.push(await prisma.user.findUnique({ where: { id } }));
  }
  return users;
}
