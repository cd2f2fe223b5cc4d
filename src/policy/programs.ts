// Which programs the vm-agent may run, and the families of programs the policy must recognise.

/** Programs a vm-agent command may start: version control, package managers, containers, the editor server. */
export const allowedPrograms = ['git', 'npm', 'yarn', 'pnpm', 'docker', 'code-server', 'openvscode-server'] as const;

/** Directories from which an allowed program may be named by absolute path (/usr/bin/git). */
const trustedDirectories = ['/usr/bin', '/bin', '/usr/local/bin', '/usr/sbin', '/sbin', '/usr/local/sbin'];

export const shells = new Set(['sh', 'bash', 'dash', 'zsh', 'ksh', 'mksh', 'ash', 'fish', 'csh', 'tcsh', 'yash', 'posh', 'rbash', 'oksh', 'pdksh', 'busybox-sh']);

/** Interpreters and the options that make them run code given on the command line. */
export const interpreters: Record<string, string[]> = {
  python: ['-c'], python2: ['-c'], python3: ['-c'], perl: ['-e', '-E'], ruby: ['-e'], node: ['-e', '-p', '--eval', '--print'],
  nodejs: ['-e', '-p', '--eval', '--print'], deno: ['eval'], bun: ['-e', '--eval'], php: ['-r'], lua: ['-e'], awk: [],
  gawk: [], mawk: [], nawk: [], tclsh: [], osascript: ['-e'], pwsh: ['-c', '-command'], powershell: ['-c', '-command'],
};

/** Programs that decode or unpack data: piping their output into a shell hides the real command. */
export const decoders = new Set(['base64', 'base32', 'basenc', 'xxd', 'uudecode', 'openssl', 'gunzip', 'gzip', 'zcat', 'bzip2', 'bunzip2', 'xz', 'unxz', 'zstd', 'rev', 'tr', 'printf', 'od', 'hexdump', 'lzma', 'brotli']);

export const sudoLike = new Set(['sudo', 'sudoedit', 'doas', 'pkexec', 'run0']);
export const suLike = new Set(['su', 'runuser', 'ksu', 'sux']);
export const evalLike = new Set(['eval', 'source', '.']);

/** The last path component: `/bin/rm` → `rm`. */
export function programName(word: string): string {
  const slash = word.lastIndexOf('/');
  return slash === -1 ? word : word.slice(slash + 1);
}

export function isAllowedProgram(name: string): name is (typeof allowedPrograms)[number] {
  return (allowedPrograms as readonly string[]).includes(name);
}

/** A program named with a path is trusted only from the system's binary directories. */
export function isTrustedLocation(word: string): boolean {
  if (!word.includes('/')) return true;
  const directory = word.slice(0, word.lastIndexOf('/'));
  return trustedDirectories.includes(directory.replace(/\/+/g, '/'));
}
