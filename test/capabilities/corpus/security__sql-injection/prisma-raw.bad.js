import { prisma } from './db.js';
export async function byEmail(req, res) {
  res.json(await prisma.$queryRawUnsafe(`SELECT * FROM "User" WHERE email = '${req.body.email}'`));
}
