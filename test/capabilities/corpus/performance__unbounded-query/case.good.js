import { prisma } from './db.js';
export async function listUsers(req, res) {
  const page = Number(req.query.page ?? 0);
  res.json(await prisma.user.findMany({ orderBy: { createdAt: 'desc' }, take: 50, skip: page * 50 }));
}
