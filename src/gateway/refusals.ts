// The gateway's audit hook, bounded: values clipped, and a flood of refusals recorded as counts rather than one line each.
import type { GatewayAudit } from './audit.js';

/** Refusals of one kind recorded one by one per window; the rest are counted and summed up when the window ends. */
const perWindow = 20;
const windowMs = 10_000;
const maxStringChars = 200;
const maxArrayItems = 20;

export interface BoundedAudit {
  /** Records an entry with every value clipped. */
  record: GatewayAudit;
  /** Records a refusal; past the window's allowance for refusals of its `kind`, only counts it. */
  refusal(type: string, kind: string, data: Record<string, unknown>): void;
  /** Writes the pending counts (on close). */
  flush(): void;
}

export function createBoundedAudit(audit: GatewayAudit, options: { cid: string; now?: () => number }): BoundedAudit {
  const now = options.now ?? Date.now;
  const windows = new Map<string, { type: string; started: number; recorded: number; suppressed: number }>();
  let timer: NodeJS.Timeout | undefined;

  const record: GatewayAudit = (type, data) => audit(type, clip(data) as Record<string, unknown>);

  const flush = (): void => {
    for (const [kind, window] of windows) {
      if (window.suppressed > 0) record('gateway.refusals-counted', { cid: options.cid, type: window.type, kind, count: window.suppressed, sinceMs: now() - window.started });
    }
    windows.clear();
    if (timer) clearTimeout(timer);
    timer = undefined;
  };

  return {
    record,
    refusal(type, kind, data) {
      const at = now();
      let window = windows.get(kind);
      if (window === undefined || at - window.started >= windowMs) {
        if (window && window.suppressed > 0) record('gateway.refusals-counted', { cid: options.cid, type, kind, count: window.suppressed, sinceMs: at - window.started });
        window = { type, started: at, recorded: 0, suppressed: 0 };
        windows.set(kind, window);
      }
      if (window.recorded < perWindow) {
        window.recorded += 1;
        record(type, { cid: options.cid, ...data });
        return;
      }
      window.suppressed += 1;
      timer ??= setTimeout(flush, windowMs).unref();
    },
    flush,
  };
}

/**
 * `value` with long strings cut, long arrays shortened and deep nesting summarised. Plain data that needs none of that is
 * returned as it is (the gateway's own records, a call's figures, are copied once, by the audit trail); anything else (a
 * Date, a Map, a class, a key named __proto__) is copied.
 */
export function clip(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return value.length > maxStringChars ? `${value.slice(0, maxStringChars)}… (${value.length} characters)` : value;
  if (typeof value !== 'object' || value === null) return value;
  if (depth >= 4) return '(nested value left out)';
  const prototype: unknown = Object.getPrototypeOf(value);
  if (Array.isArray(value)) {
    const items = value.slice(0, maxArrayItems).map((item) => clip(item, depth + 1));
    if (value.length > maxArrayItems) return [...items, `(${value.length - maxArrayItems} more)`];
    return prototype === Array.prototype && items.every((item, index) => item === value[index]) ? value : items;
  }
  const keys = Object.keys(value);
  const kept = Math.min(keys.length, maxArrayItems);
  // Copied from the first key that needs it on (or from the start, for anything but plain data with few keys).
  let out: Record<string, unknown> | undefined = (prototype === Object.prototype || prototype === null) && kept === keys.length ? undefined : {};
  for (let index = 0; index < kept; index += 1) {
    const key = keys[index]!;
    const name = key.length > 64 ? key.slice(0, 64) : key;
    const original: unknown = (value as Record<string, unknown>)[key];
    const child = clip(original, depth + 1);
    if (out === undefined) {
      if (child === original && name === key && name !== '__proto__') continue;
      out = {};
      for (const before of keys.slice(0, index)) out[before] = (value as Record<string, unknown>)[before];
    }
    // Defined, not assigned: a key named __proto__ would otherwise set the copy's prototype and vanish from the record.
    if (name === '__proto__') Object.defineProperty(out, name, { value: child, enumerable: true, writable: true, configurable: true });
    else out[name] = child;
  }
  return out ?? value;
}
