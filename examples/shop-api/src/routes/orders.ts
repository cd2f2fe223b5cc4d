// Order routes: place an order, show a receipt.
import { Router } from 'express';
import { z } from 'zod';
import { prisma } from '../db.js';
import { HttpError } from '../errors.js';
import { validateBody } from '../middleware/validate.js';

export const ordersRouter = Router();

const orderInput = z.object({
  email: z.string().email(),
  lines: z.array(z.object({ productId: z.string(), quantity: z.number().int().positive() })).min(1),
});

ordersRouter.post('/orders', validateBody(orderInput), async (req, res) => {
  const input = orderInput.parse(req.body);
  const prices: number[] = [];
  for (const line of input.lines) {
    const product = await prisma.product.findUnique({ where: { id: line.productId } });
    if (!product) throw new HttpError(404, `Unknown product ${line.productId}`);
    prices.push(product.priceCents * line.quantity);
  }
  const order = await prisma.order.create({ data: { email: input.email, lines: { create: input.lines } } });
  res.status(201).json({ id: order.id, totalCents: prices.reduce((sum, price) => sum + price, 0) });
});

ordersRouter.get('/orders/:id/receipt', async (req, res) => {
  const order = await prisma.order.findUnique({ where: { id: req.params.id }, include: { lines: true } });
  if (!order) throw new HttpError(404, 'Order not found');
  res.render('receipt', { order, note: req.query.note });
});
