// /sessions: lists the saved sessions of this project.
import { z } from 'zod';
import { result } from '../output.js';
import { defineCommand } from './types.js';

const formatSize = (bytes: number): string => (bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} KB`);

export const sessionsCommand = defineCommand({
  name: 'sessions',
  summary: 'List saved sessions with their date and size',
  usage: '/sessions',
  args: z.object({}),
  run: async (_args, ctx) => {
    const sessions = await ctx.runtime.listSessions();
    const text = sessions.length === 0
      ? 'No saved sessions yet. Save this one with /save <name>.'
      : sessions
          .map((s) => `  ${s.name.padEnd(24)} ${(s.savedAt ?? '?').replace('T', ' ').slice(0, 19)}  ${formatSize(s.size).padStart(9)}${s.unreadable ? `  unreadable: ${s.unreadable}` : ''}`)
          .join('\n');
    ctx.emit(result('sessions', { sessions }, text));
  },
});
