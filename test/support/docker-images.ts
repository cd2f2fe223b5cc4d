// A minimal test image (static busybox, users root and cadre) imported from a local rootfs tarball: no registry needed.
import { spawn, execFileSync } from 'node:child_process';
import { chmod, copyFile, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Docker from 'dockerode';
import { withFileLock } from '../../src/container/file-lock.js';

export const minimalImage = 'cadre-test-minimal:1';

const busyboxPath = process.env.CADRE_TEST_BUSYBOX ?? '/bin/busybox';

async function imageExists(docker: Docker, name: string): Promise<boolean> {
  try {
    await docker.getImage(name).inspect();
    return true;
  } catch (error) {
    if ((error as { statusCode?: number }).statusCode === 404) return false;
    throw error;
  }
}

async function writeRootfs(dir: string): Promise<void> {
  for (const sub of ['bin', 'etc', 'tmp', 'workspace', 'proc', 'sys', 'dev']) await mkdir(join(dir, sub));
  // mkdtemp makes the root 0700, which would lock a non-root user out of /.
  await chmod(dir, 0o755);
  await chmod(join(dir, 'tmp'), 0o1777);
  await copyFile(busyboxPath, join(dir, 'bin/busybox'));
  const applets = execFileSync(busyboxPath, ['--list'], { encoding: 'utf8' }).split('\n').filter((name) => name && name !== 'busybox');
  await Promise.all(applets.map((name) => symlink('busybox', join(dir, 'bin', name))));
  await writeFile(join(dir, 'etc/passwd'), 'root:x:0:0:root:/root:/bin/sh\ncadre:x:1000:1000:cadre:/workspace:/bin/sh\n');
  await writeFile(join(dir, 'etc/group'), 'root:x:0:\ncadre:x:1000:\n');
}

async function importRootfs(docker: Docker, dir: string): Promise<void> {
  const tar = spawn('tar', ['--numeric-owner', '--owner=0', '--group=0', '-C', dir, '-c', '.'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const tarDone = new Promise<void>((resolve, reject) => {
    tar.on('error', reject);
    tar.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`tar exited with ${code}`))));
  });
  const [repo, tag] = minimalImage.split(':');
  const progress = await docker.importImage(tar.stdout, { repo, tag, changes: ['CMD ["/bin/sh"]', 'LABEL cadre.test=minimal'] });
  await new Promise<void>((resolve, reject) => docker.modem.followProgress(progress, (error) => (error ? reject(error) : resolve())));
  await tarDone;
}

/** Builds `cadre-test-minimal:1` once (reused when present); safe to call from parallel test files. */
export async function ensureMinimalImage(docker: Docker): Promise<string> {
  if (await imageExists(docker, minimalImage)) return minimalImage;
  return withFileLock(join(tmpdir(), 'cadre-test-minimal-image.lock'), async () => {
    if (await imageExists(docker, minimalImage)) return minimalImage;
    const dir = await mkdtemp(join(tmpdir(), 'cadre-rootfs-'));
    try {
      await writeRootfs(dir);
      await importRootfs(docker, dir);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    return minimalImage;
  });
}
