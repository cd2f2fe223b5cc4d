// How every vm command names its container: a positional id (or --container, its alias), else the last container of this session.
import { z } from 'zod';
import { CadreError, exitCodes } from '../errors.js';
import { result } from '../output.js';
import type { CommandContext } from './types.js';

/** The ids cadre gives its containers (vm-3f2a): a command with other positionals reads a first word of this form as the container. */
export const looksLikeContainerId = (word: string | undefined): word is string => word !== undefined && /^vm-[0-9a-f]{4}$/.test(word);

/** The positional id and its --container alias, for a command's schema (`containerId` goes in its `positionals`). */
export const containerIdArgs = (without = 'default: the last container of this session') => ({
  containerId: z.string().min(1).optional().describe(`the container id, e.g. vm-3f2a (${without})`),
  container: z.string().min(1).optional().describe('the same as <containerId>, as a flag'),
});

/** The id given as a positional or as --container (both only when they agree); undefined when neither was. */
export function givenContainer(command: string, ids: { containerId?: string | undefined; container?: string | undefined }): string | undefined {
  const { containerId, container } = ids;
  if (containerId !== undefined && container !== undefined && containerId !== container) {
    throw new CadreError('vm.container-twice', `/${command} was given two containers: ${containerId} and --container ${container}.`, {
      remedy: `name one: /${command} ${containerId} (--container is the same as the id written first)`, exitCode: exitCodes.usage,
    });
  }
  return containerId ?? container;
}

/**
 * The container `command` acts on: the one named, else the last container of this session, said in text and as a
 * `vm.container` result (--json). None named and none in this session: a usage error saying how to name or make one.
 * `after` is what the command takes after the id, for the usage it shows.
 */
export function chooseContainer(command: string, ids: { containerId?: string | undefined; container?: string | undefined }, ctx: CommandContext, after = ''): string {
  const given = givenContainer(command, ids);
  if (given !== undefined) return given;
  const last = ctx.runtime.session.view().currentContainer;
  if (!last) {
    throw new CadreError('vm.no-container', `/${command} needs a container: none was named, and this session has no container to default to (the last one it created or used).`, {
      remedy: `name it: /${command} <container_id>${after} (/vm-status lists this installation's containers), or create one with /vm-create <repo_url>`,
      exitCode: exitCodes.usage,
    });
  }
  ctx.emit(result('vm.container', { containerId: last, chosen: 'last-of-session' }, `Using ${last}, the last container of this session (/${command} <container_id>${after} names another).`));
  return last;
}
