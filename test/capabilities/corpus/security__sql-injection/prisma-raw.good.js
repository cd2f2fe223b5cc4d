import { prisma } from './db.js';
export async function byEmail(req, res) {
  res.json(await prisma.$queryRaw`SELECT * FROM "User" WHERE email = ${req.body.email}`);
}
