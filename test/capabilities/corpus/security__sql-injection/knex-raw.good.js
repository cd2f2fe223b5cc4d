import { knex } from './knex.js';
const sortable = { name: 'name', price: 'price' };
export async function search(req, res) {
  const column = sortable[req.query.sort] ?? 'name';
  res.json(await knex('products').orderBy(column, 'desc'));
}
