// Where a project keeps what plan applies leave behind: undo records and the journal of an apply in progress.
import { join } from 'node:path';

/** One record per applied plan, for /undo (also after a restart). */
export const undoDir = (cwd: string): string => join(cwd, '.cadre', 'undo');

/** Where a plan's apply (or undo) is journalled while its files move into place; a start finding one recovers it. */
export const journalDir = (cwd: string): string => join(cwd, '.cadre', 'journal');
