// The Prisma client shared by the routes.
import { PrismaClient } from '@prisma/client';

export const prisma = new PrismaClient();
