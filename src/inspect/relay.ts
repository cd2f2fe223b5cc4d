// --inspect and --trace: a Stately inspector relay on 127.0.0.1, and a JSON-lines recorder of inspection events.
import { closeSync, openSync, readFileSync, writeSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createWebSocketInspector } from '@statelyai/inspect';
import { WebSocket, WebSocketServer } from 'ws';
import type { InspectionEvent, Observer } from 'xstate';
import { CadreError } from '../errors.js';

/** The Stately inspector UI that the bridge page embeds; the browser loads it, cadre never calls it. */
const inspectorUiUrl = 'https://stately.ai/inspect';
/** How many relayed messages a browser that connects late still receives. */
const relayBufferSize = 10_000;
/** The inspection protocol version of @statelyai/inspect that replayed events claim. */
const statelyProtocolVersion = '0.7.2';

function bridgePage(relayUrl: string): string {
  return `<!DOCTYPE html>
<html><head><title>cadre · Stately inspector</title>
<style>html,body,iframe{margin:0;width:100%;height:100%;border:0}</style></head>
<body><iframe id="inspector" src="${inspectorUiUrl}"></iframe>
<script>
  const frame = document.getElementById('inspector');
  const pending = [];
  let connected = false;
  window.addEventListener('message', (message) => {
    if (message.data && message.data.type === '@statelyai.connected') {
      connected = true;
      pending.splice(0).forEach((event) => frame.contentWindow.postMessage(event, '*'));
    }
  });
  const socket = new WebSocket(${JSON.stringify(relayUrl)});
  socket.onmessage = (message) => {
    const event = JSON.parse(message.data);
    if (connected) frame.contentWindow.postMessage(event, '*'); else pending.push(event);
  };
</script></body></html>
`;
}

export interface Inspector {
  /** The page to open in a browser. */
  url: string;
  /** The WebSocket relay that inspection events travel through. */
  relayUrl: string;
  inspect: Observer<InspectionEvent>;
  stop(): Promise<void>;
}

const closeServer = (server: Server): Promise<void> =>
  new Promise((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));

/**
 * Starts a WebSocket relay on 127.0.0.1 (a free port unless `port` is given) that serves a bridge page
 * embedding the Stately inspector, and connects `@statelyai/inspect`'s WebSocket inspector to it.
 * Pass `inspect` to `createActor(…, { inspect })`.
 */
export async function startInspector(options: { port?: number } = {}): Promise<Inspector> {
  const server = createServer();
  const relay = new WebSocketServer({ server });
  const buffer: string[] = [];
  relay.on('connection', (socket) => {
    buffer.forEach((message) => socket.send(message));
    socket.on('message', (data) => {
      const message = data.toString();
      buffer.push(message);
      if (buffer.length > relayBufferSize) buffer.shift();
      for (const client of relay.clients) {
        if (client !== socket && client.readyState === WebSocket.OPEN) client.send(message);
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => reject(new CadreError('inspect.listen',
      `The inspector relay cannot listen on 127.0.0.1:${options.port ?? 0} (${error.code ?? error.message}).`,
      { remedy: 'Free the port or choose another one.', cause: error })));
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}/`;
  const relayUrl = `ws://127.0.0.1:${port}/`;
  const page = bridgePage(relayUrl);
  server.on('request', (_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(page);
  });
  const inspector = createWebSocketInspector({ url: relayUrl });
  return {
    url,
    relayUrl,
    inspect: inspector.inspect,
    stop: async () => {
      inspector.stop();
      relay.clients.forEach((client) => client.terminate());
      await new Promise<void>((resolve) => relay.close(() => resolve()));
      server.closeAllConnections();
      await closeServer(server);
    },
  };
}

const isActorRef = (value: object): value is { sessionId: string; id: string } =>
  'sessionId' in value && typeof (value as { send?: unknown }).send === 'function';

/**
 * A JSON-safe copy of any value: actor refs become `{ actorRef: sessionId, id }`, errors their name and
 * message, functions their name; cycles and depth past `maxDepth` are cut.
 */
export function toSafeJson(value: unknown, maxDepth = 12): unknown {
  const ancestors: object[] = [];
  const convert = (current: unknown, depth: number): unknown => {
    if (current === null || typeof current === 'string' || typeof current === 'boolean') return current;
    if (typeof current === 'number') return Number.isFinite(current) ? current : String(current);
    if (typeof current === 'bigint') return current.toString();
    if (typeof current === 'undefined' || typeof current === 'symbol') return undefined;
    if (typeof current === 'function') return `[function ${current.name || 'anonymous'}]`;
    if (isActorRef(current)) return { actorRef: current.sessionId, id: current.id };
    if (current instanceof Error) return { name: current.name, message: current.message };
    if (current instanceof Date) return current.toISOString();
    if (ancestors.includes(current)) return '[circular]';
    if (depth >= maxDepth) return '[too deep]';
    ancestors.push(current);
    try {
      if (Array.isArray(current)) return current.map((item) => convert(item, depth + 1) ?? null);
      if (current instanceof Map) return Object.fromEntries([...current].map(([key, item]) => [String(key), convert(item, depth + 1)]));
      if (current instanceof Set) return [...current].map((item) => convert(item, depth + 1));
      return Object.fromEntries(Object.entries(current).map(([key, item]) => [key, convert(item, depth + 1)]));
    } finally {
      ancestors.pop();
    }
  };
  return convert(value, 0);
}

const snapshotRecord = (snapshot: unknown) => {
  const { status, value, context, output, error } = snapshot as Record<string, unknown>;
  return toSafeJson({ status, value, context, output, error });
};

/** One trace line: what the inspection event says, without live objects. */
export function toTraceRecord(event: InspectionEvent, seq: number): Record<string, unknown> {
  const actor = event.actorRef as unknown as { sessionId: string; id: string; _parent?: { sessionId: string }; logic?: { config?: unknown } };
  const base = { seq, ts: Date.now(), type: event.type, rootId: event.rootId, actorId: actor.sessionId, actor: actor.id };
  switch (event.type) {
    case '@xstate.actor': {
      const config = actor.logic?.config as { id?: string } | undefined;
      return {
        ...base,
        parentId: actor._parent?.sessionId,
        name: config?.id ?? actor.id,
        definition: config === undefined ? undefined : JSON.stringify(toSafeJson(config)),
      };
    }
    case '@xstate.event':
      return { ...base, sourceId: event.sourceRef?.sessionId, event: toSafeJson(event.event) };
    case '@xstate.snapshot':
      return { ...base, event: toSafeJson(event.event), snapshot: snapshotRecord(event.snapshot) };
    case '@xstate.microstep':
      return {
        ...base,
        event: toSafeJson(event.event),
        value: toSafeJson((event.snapshot as { value?: unknown }).value),
        transitions: event._transitions.map((transition) => ({
          source: transition.source.id,
          eventType: transition.eventType,
          targets: (transition.target ?? []).map((target) => target.id),
        })),
      };
    case '@xstate.action':
      return { ...base, action: toSafeJson(event.action) };
    default:
      return { ...base, event: toSafeJson((event as { event?: unknown }).event) };
  }
}

export interface TraceRecorder {
  inspect: (event: InspectionEvent) => void;
  close(): Promise<void>;
}

/**
 * Records every inspection event to `file` (truncated first) as JSON lines. Each line is written
 * as it happens, so a crash keeps everything up to the crash. Recording never throws into the actor
 * system: a write failure stops the recording and `close()` reports it.
 */
export function createTraceRecorder(file: string): TraceRecorder {
  let fd: number;
  try {
    fd = openSync(file, 'w', 0o600);
  } catch (error) {
    throw new CadreError('trace.open', `Cannot write the trace file ${file}: ${(error as Error).message}.`, {
      remedy: 'Pass --trace a path in a folder that exists and that you can write to.',
      cause: error,
    });
  }
  let seq = 0;
  let open = true;
  let failure: unknown;
  return {
    inspect: (event) => {
      if (!open || failure !== undefined) return;
      seq += 1;
      let line: string;
      try {
        line = JSON.stringify(toTraceRecord(event, seq));
      } catch (error) {
        line = JSON.stringify({ seq, ts: Date.now(), type: event.type, unserializable: String(error) });
      }
      try {
        writeSync(fd, `${line}\n`);
      } catch (error) {
        failure = error;
      }
    },
    close: async () => {
      if (!open) return;
      open = false;
      closeSync(fd);
      if (failure !== undefined) {
        throw new CadreError('trace.write', `The trace file ${file} stopped at event ${seq - 1}: ${(failure as Error).message}.`, {
          remedy: 'Check the free space and permissions of the trace folder.',
          cause: failure,
        });
      }
    },
  };
}

/** A trace line as the event the Stately inspector understands; records it does not show give null. */
export function toStatelyEvent(record: Record<string, unknown>): Record<string, unknown> | null {
  const common = { sessionId: record.actorId, rootId: record.rootId, createdAt: String(record.ts), id: null, _version: statelyProtocolVersion };
  switch (record.type) {
    case '@xstate.actor':
      return { ...common, type: '@xstate.actor', name: record.name, parentId: record.parentId, definition: record.definition, snapshot: { status: 'active' } };
    case '@xstate.event':
      return { ...common, type: '@xstate.event', event: record.event, sourceId: record.sourceId };
    case '@xstate.snapshot':
      return { ...common, type: '@xstate.snapshot', event: record.event, snapshot: record.snapshot };
    default:
      return null;
  }
}

/**
 * Sends a recorded trace to an inspector relay (see `startInspector`), so a run recorded offline with
 * `--trace` can be viewed later. Returns how many events were sent.
 */
export async function replayTrace({ file, relayUrl }: { file: string; relayUrl: string }): Promise<number> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new CadreError('trace.read', `Cannot read the trace file ${file}: ${(error as Error).message}.`, {
      remedy: 'Pass the path of a file written by cadre --trace.', cause: error,
    });
  }
  const events = text.split('\n').filter((line) => line.trim() !== '').map((line, index) => {
    try {
      return toStatelyEvent(JSON.parse(line) as Record<string, unknown>);
    } catch (error) {
      throw new CadreError('trace.corrupt', `Line ${index + 1} of ${file} is not a trace record.`, {
        remedy: 'Replay a file written by cadre --trace, unedited.', cause: error,
      });
    }
  }).filter((event) => event !== null);
  const socket = new WebSocket(relayUrl);
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', (error) => reject(new CadreError('trace.relay', `Cannot reach the inspector relay at ${relayUrl}.`, {
      remedy: 'Start it with cadre --inspect and use the URL it prints.', cause: error,
    })));
  });
  for (const event of events) socket.send(JSON.stringify(event));
  await new Promise<void>((resolve) => {
    socket.once('close', () => resolve());
    socket.close();
  });
  return events.length;
}
