// Entry point of the in-container forwarder: `node forwarder-main.js [--socket P | --tunnel] [--model-port N] [--proxy-port N]`.
// Prints one JSON line with the ports it listens on (on stderr with --tunnel, whose stdout carries frames), then runs until
// SIGTERM or SIGINT, or with --tunnel until its standard input ends.
import { startForwarder } from './forwarder.js';
import { startTunnelForwarder } from './forwarder-tunnel.js';

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

const ports = { modelPort: port('model-port'), proxyPort: port('proxy-port') };
const listening = (forwarder: { modelPort: number; proxyPort: number }): string => `${JSON.stringify({ modelPort: forwarder.modelPort, proxyPort: forwarder.proxyPort })}\n`;
let forwarder: { close(): Promise<void> };
if (process.argv.includes('--tunnel')) {
  const tunnel = await startTunnelForwarder({ input: process.stdin, output: process.stdout, ...ports });
  process.stderr.write(listening(tunnel));
  void tunnel.ended.then(({ reason }) => process.exit(reason === 'input-ended' || reason === 'output-failed' ? 0 : 1));
  forwarder = tunnel;
} else {
  const socket = await startForwarder({ socketPath: option('socket'), ...ports });
  process.stdout.write(listening(socket));
  forwarder = socket;
}
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => void forwarder.close().then(() => process.exit(0)));
}
