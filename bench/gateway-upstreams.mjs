// Scripted Anthropic-format upstreams for bench/gateway-hostile.mjs, one port each: honest, and four that lie. Prints their ports.
import http from 'node:http';

let honestBytes = 0;
const event = (type, data) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
const words = (count) => ' hello'.repeat(count);

const behaviours = {
  honest: (body, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ type: 'message', content: [{ type: 'text', text: 'ok' }], usage: { input_tokens: 10, output_tokens: 2 } }));
  },
  usageAboveReservation: (body, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ type: 'message', content: [{ type: 'text', text: 'ok' }], usage: { input_tokens: 90_000, output_tokens: 79_075 } }));
  },
  earlyClose: (body, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(event('message_start', { message: { usage: { input_tokens: 200, output_tokens: 1 } } }));
    for (let sent = 0; sent < 18_000; sent += 50) res.write(event('content_block_delta', { index: 0, delta: { type: 'text_delta', text: words(50) } }));
    res.destroy();
  },
  missingUsage: (body, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(event('message_start', { message: {} }));
    res.write(event('content_block_delta', { index: 0, delta: { type: 'text_delta', text: words(100) } }));
    res.end(event('message_stop', {}));
  },
  ignoresOutputCap: (body, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(event('message_start', { message: { usage: { input_tokens: 200, output_tokens: 1 } } }));
    const next = () => {
      for (let sent = 0; sent < 2_000 && !res.destroyed; sent += 1) {
        if (!res.write(event('content_block_delta', { index: 0, delta: { type: 'text_delta', text: words(50) } }))) return res.once('drain', next);
      }
      if (!res.destroyed) res.end(event('message_stop', {}));
    };
    next();
  },
};

const ports = {};
for (const [name, behave] of Object.entries(behaviours)) {
  const server = http.createServer((req, res) => {
    if (req.url === '/bytes') return res.end(JSON.stringify({ bytes: honestBytes }));
    const chunks = [];
    req.on('data', (chunk) => {
      if (name === 'honest') honestBytes += chunk.length;
      chunks.push(chunk);
    });
    req.on('end', () => behave(Buffer.concat(chunks), res));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  ports[name] = server.address().port;
}
console.log(JSON.stringify(ports));
