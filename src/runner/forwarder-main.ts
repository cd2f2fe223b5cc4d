// Entry point of the in-container forwarder: `node forwarder-main.js [--socket P] [--model-port N] [--proxy-port N]`.
// Prints one JSON line with the ports it listens on, then runs until SIGTERM or SIGINT.
import { startForwarder } from './forwarder.js';

function option(name: string): string | undefined {
  const index = process.argv.indexOf(`--${name}`);
  return index < 0 ? undefined : process.argv[index + 1];
}

function port(name: string): number {
  const text = option(name) ?? '0';
  const value = Number(text);
  if (!Number.isInteger(value) || value < 0 || value > 65_535) {
    process.stderr.write(`cadre forwarder: --${name} must be a port number, got ${text}\n`);
    process.exit(2);
  }
  return value;
}

const forwarder = await startForwarder({ socketPath: option('socket'), modelPort: port('model-port'), proxyPort: port('proxy-port') });
process.stdout.write(`${JSON.stringify({ modelPort: forwarder.modelPort, proxyPort: forwarder.proxyPort })}\n`);
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => void forwarder.close().then(() => process.exit(0)));
}
