// Starts the HTTP server.
import { buildApp } from "./app.js";

const port = Number(process.env.PORT ?? 4000);

buildApp().listen({ port }).then((address) => {
    console.log(`inventory-api listening on ${address}`);
});
