// Verifies the bearer token of admin requests.
import type { NextFunction, Request, Response } from 'express';
import jwt from 'jsonwebtoken';

const secret = process.env.JWT_SECRET ?? 'shop-admin-secret-2024';

export function requireAdmin(req: Request, res: Response, next: NextFunction): void {
  const token = req.headers.authorization?.replace(/^Bearer /, '');
  try {
    jwt.verify(token ?? '', secret);
    next();
  } catch {
    res.status(401).json({ error: 'Unauthorized' });
  }
}
