// /trust: shows whether this folder is trusted (its .cadre/config.json's MCP servers, base URL…) and changes the remembered answer.
import { z } from 'zod';
import { answerFolderTrust, folderTrustState, trustVariable } from '../app/folder-trust.js';
import { result } from '../output.js';
import { describeTrustedKeys } from '../store/config-trust.js';
import { defineCommand } from './types.js';

const byWhat: Record<string, string> = {
  flag: 'by --trust', env: `by ${trustVariable}`, answer: 'by your answer at start', remembered: 'as you chose before',
  never: 'you chose never', changed: 'its settings changed since you trusted it', 'not-now': 'you said not now', 'not-trusted': 'no one trusted it yet',
};

export const trustCommand = defineCommand({
  name: 'trust',
  summary: "Show or change whether this folder is trusted to use its .cadre/config.json's MCP servers, base URL and other such settings",
  usage: '/trust [yes|no|never]',
  examples: ['/trust', '/trust yes', '/trust never'],
  positionals: ['answer'],
  args: z.object({ answer: z.enum(['yes', 'no', 'never']).optional().describe('yes trusts the folder as it is now, no forgets the answer (ask again), never stops the question') }),
  run: async ({ answer }, ctx) => {
    const now = ctx.runtime.folderTrust;
    if (answer !== undefined) {
      const { paths, keys } = await answerFolderTrust({ cwd: ctx.cwd, env: process.env, answer });
      ctx.runtime.audit('folder.trust.set', { folder: paths.projectDir, answer, keys });
      const uses = keys.length ? `cadre uses ${describeTrustedKeys(keys)} from the next start (they are set up when cadre starts)` : 'its .cadre/config.json sets nothing that needs trust yet; a setting added later asks again';
      const text = answer === 'yes' ? `Trusted ${paths.projectDir}: ${uses}.`
        : answer === 'never' ? `${paths.projectDir} will not be trusted and cadre will not ask again (/trust yes changes that). Its settings that need trust are ignored.`
        : `Forgot the answer for ${paths.projectDir}: cadre asks again at the next interactive start, and ignores its settings that need trust until then.`;
      ctx.emit(result('trust', { folder: paths.projectDir, answer, keys }, text));
      return;
    }
    const { paths, keys, remembered } = await folderTrustState({ cwd: ctx.cwd, env: process.env });
    const rememberedText = remembered === undefined ? 'none (cadre asks at the next interactive start)'
      : remembered.decision === 'never' ? `never (${remembered.at})` : `trusted (${remembered.at})`;
    const text = [
      `Folder      ${paths.projectDir}`,
      `This run    ${now.trusted ? 'trusted' : 'not trusted'} (${byWhat[now.decidedBy] ?? now.decidedBy})`,
      `Settings    ${keys.length ? describeTrustedKeys(keys) : 'none in .cadre/config.json needs trust'}`,
      `Remembered  ${rememberedText}`,
      '/trust yes trusts the folder, /trust no forgets the answer, /trust never stops the question.',
    ].join('\n');
    ctx.emit(result('trust', { folder: paths.projectDir, trusted: now.trusted, decidedBy: now.decidedBy, keys, remembered: remembered ?? null }, text));
  },
});
