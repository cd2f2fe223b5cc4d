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

/** `value` with long strings cut, long arrays shortened and deep nesting summarised: a copy, or `value` itself when it needs none of that. */
export function clip(value: unknown, depth = 0): unknown {
  return fitsAsIs(value, depth) ? value : clipped(value, depth);
}

/** True when clipping would change nothing: the gateway's own records (a call's figures) are copied once, by the audit trail. */
function fitsAsIs(value: unknown, depth: number): boolean {
  if (typeof value === 'string') return value.length <= maxStringChars;
  if (typeof value !== 'object' || value === null) return true;
  if (depth >= 4) return false;
  // Only plain data is passed as it is; anything else (a Date, a Map, a class) is copied as it always was.
  const prototype: unknown = Object.getPrototypeOf(value);
  if (Array.isArray(value)) {
    if (prototype !== Array.prototype || value.length > maxArrayItems) return false;
    for (const item of value) if (!fitsAsIs(item, depth + 1)) return false;
    return true;
  }
  if (prototype !== Object.prototype && prototype !== null) return false;
  const keys = Object.keys(value);
  if (keys.length > maxArrayItems) return false;
  for (const key of keys) {
    if (key.length > 64 || key === '__proto__' || !fitsAsIs((value as Record<string, unknown>)[key], depth + 1)) return false;
  }
  return true;
}

function clipped(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return value.length > maxStringChars ? `${value.slice(0, maxStringChars)}… (${value.length} characters)` : value;
  if (typeof value !== 'object' || value === null) return value;
  if (depth >= 4) return '(nested value left out)';
  if (Array.isArray(value)) {
    const items = value.slice(0, maxArrayItems).map((item) => clip(item, depth + 1));
    return value.length > maxArrayItems ? [...items, `(${value.length - maxArrayItems} more)`] : items;
  }
  const out: Record<string, unknown> = {};
  const keys = Object.keys(value);
  const kept = Math.min(keys.length, maxArrayItems);
  for (let index = 0; index < kept; index += 1) {
    const key = keys[index]!;
    const name = key.length > 64 ? key.slice(0, 64) : key;
    const child = clip((value as Record<string, unknown>)[key], depth + 1);
    // Defined, not assigned: a key named __proto__ would otherwise set the copy's prototype and vanish from the record.
    if (name === '__proto__') Object.defineProperty(out, name, { value: child, enumerable: true, writable: true, configurable: true });
    else out[name] = child;
  }
  return out;
}
