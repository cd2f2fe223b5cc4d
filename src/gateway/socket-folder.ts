// The gateway socket's folder: reachable by its owner and the container's user only, so no other local user can use the egress proxy.
import { chmod, chown } from 'node:fs/promises';

/** Who besides the owner can reach the folder: the container's user through its group, or everyone (the last resort). */
export type SocketFolderAccess = 'owner-is-container-user' | 'container-group' | 'everyone';

/**
 * Restricts `dir` (the folder bind-mounted at /run/cadre): 0700 when cadre runs as the container's uid, else owned by
 * the container's group with mode 0710 (traverse only). Where cadre may not give the folder that group (not root, not
 * a member), it falls back to 0711 and says so, since the container could not reach its gateway otherwise.
 */
export async function restrictSocketFolder(dir: string, containerUser: { uid: number; gid: number }): Promise<SocketFolderAccess> {
  const uid = process.getuid?.() ?? -1;
  if (uid === containerUser.uid) {
    await chmod(dir, 0o700);
    return 'owner-is-container-user';
  }
  try {
    await chown(dir, uid, containerUser.gid);
    await chmod(dir, 0o710);
    return 'container-group';
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') throw error;
    await chmod(dir, 0o711);
    return 'everyone';
  }
}
