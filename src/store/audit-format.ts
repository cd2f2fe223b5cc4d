// `cadre audit show`: an audit log as readable lines, `#seq time type summary`.
import { readFile } from 'node:fs/promises';
import type { AuditRecord } from './audit-record.js';

/** One line per record; lines that do not parse are shown as such, never skipped. */
export async function formatAuditForPeople(file: string): Promise<string> {
  const lines = (await readFile(file, 'utf8')).split('\n').filter((line) => line !== '');
  return lines
    .map((line, index) => {
      let record: AuditRecord;
      try {
        record = JSON.parse(line) as AuditRecord;
      } catch {
        return `#?    line ${index + 1} is not valid JSON`;
      }
      if (typeof record !== 'object' || record === null) return `#?    line ${index + 1} is not a record`;
      const time = typeof record.ts === 'string' ? record.ts.replace('T', ' ').replace(/\.\d+Z$/, 'Z') : '?';
      return `#${String(record.seq).padEnd(4)} ${time}  ${String(record.type).padEnd(18)} ${summarize(record.type, record.data)}`.trimEnd();
    })
    .join('\n');
}

function summarize(type: string, data: unknown): string {
  const d = (typeof data === 'object' && data !== null ? data : {}) as Record<string, unknown>;
  switch (type) {
    case 'command.typed':
      return oneLine(String(d.text ?? ''));
    case 'file.written':
      return d.change === 'deleted' ? `${String(d.path)} deleted` : `${String(d.path)} (${String(d.change ?? 'written')}, ${String(d.bytes)} bytes, sha256 ${String(d.sha256).slice(0, 12)}…)`;
    case 'command.executed':
      return `${oneLine(String(d.command ?? ''))} → exit ${String(d.exitCode)} in ${String(d.durationMs)} ms`;
    case 'audit.checkpoint':
      return `${String(d.count)} records sealed, last hash ${String(d.lastHash).slice(0, 12)}…`;
    default:
      return data === null || data === undefined ? '' : oneLine(JSON.stringify(data));
  }
}

function oneLine(text: string): string {
  const flat = text.replace(/\s*\n\s*/g, ' ⏎ ');
  return flat.length > 120 ? `${flat.slice(0, 119)}…` : flat;
}
