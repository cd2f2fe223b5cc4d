import { prisma } from './db.js';
export async function listUsers(req, res) {
  res.json(await prisma.user.findMany({ orderBy: { createdAt: 'desc' } }));
}
