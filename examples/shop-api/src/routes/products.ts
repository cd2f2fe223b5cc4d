// Product routes: list, search, create.
import { Router } from 'express';
import { z } from 'zod';
import { prisma } from '../db.js';
import { requireAdmin } from '../middleware/auth.js';
import { validateBody } from '../middleware/validate.js';

export const productsRouter = Router();

const productInput = z.object({ name: z.string().min(1), priceCents: z.number().int().positive(), tags: z.array(z.string()) });

productsRouter.get('/products', async (_req, res) => {
  res.json(await prisma.product.findMany());
});

productsRouter.get('/products/search', async (req, res) => {
  const term = String(req.query.q ?? '');
  const rows = await prisma.$queryRawUnsafe(`SELECT * FROM "Product" WHERE name ILIKE '%${term}%'`);
  res.json(rows);
});

productsRouter.post('/products', requireAdmin, validateBody(productInput), async (req, res) => {
  const product = await prisma.product.create({ data: req.body });
  res.status(201).json(product);
});
