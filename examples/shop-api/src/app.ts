// The Express application: middleware, routes, error handling.
import cookieParser from 'cookie-parser';
import express from 'express';
import { errorHandler } from './errors.js';
import { ordersRouter } from './routes/orders.js';
import { productsRouter } from './routes/products.js';

export function createApp() {
  const app = express();
  app.set('view engine', 'ejs');
  app.use(express.json());
  app.use(cookieParser());
  app.use(productsRouter);
  app.use(ordersRouter);
  app.use(errorHandler);
  return app;
}
