// The Fastify application: routes and their plugins.
import Fastify from "fastify";
import { itemsRoutes } from "./routes/items.js";

export function buildApp() {
    const app = Fastify();
    app.register(itemsRoutes);
    return app;
}
