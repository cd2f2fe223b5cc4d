import { knex } from './knex.js';
export async function search(req, res) {
  const { sort } = req.query;
  res.json(await knex('products').orderByRaw(`${sort} DESC`));
}
