// Item routes: list the stock.
import type { FastifyInstance } from "fastify";
import { db } from "../db.js";

export async function itemsRoutes(app: FastifyInstance) {
    app.get("/items", async () => {
        return db("items").select("*");
    });
}
