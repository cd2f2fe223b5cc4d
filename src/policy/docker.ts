// docker: containers started from inside the sandbox may not take host privileges or the host's root.
import { deny, type Decision } from './decision.js';
import { splitOnce } from './options.js';

const privilegeFlags = ['--privileged', '--cap-add', '--security-opt', '--device', '--device-cgroup-rule'];
const hostNamespaceOptions = ['--pid', '--ipc', '--uts', '--userns', '--network', '--net', '--cgroupns'];
const mountOptions = ['-v', '--volume', '--mount'];

/** Checks docker arguments; undefined when acceptable. */
export function checkDocker(args: readonly string[]): Decision | undefined {
  for (let index = 0; index < args.length; index += 1) {
    const arg = args[index] ?? '';
    const [name, inline] = splitOnce(arg, '=');
    const value = inline ?? args[index + 1] ?? '';
    if (privilegeFlags.includes(name)) {
      return deny('policy.docker.privileged', `docker ${arg} gives a container host privileges.`, { program: 'docker' });
    }
    if (hostNamespaceOptions.includes(name) && value === 'host') {
      return deny('policy.docker.privileged', `docker ${name} host shares the host's namespace.`, { program: 'docker' });
    }
    if (mountOptions.includes(name) && mountsHost(name, value)) {
      return deny('policy.docker.privileged', `docker ${name} ${value} mounts the root file system or the Docker socket.`, { program: 'docker' });
    }
  }
  return undefined;
}

function mountsHost(option: string, value: string): boolean {
  const source = option === '--mount'
    ? (/(?:^|,)(?:source|src)=([^,]*)/.exec(value)?.[1] ?? '')
    : value.split(':')[0] ?? '';
  const normalized = source.replace(/\/+$/, '') || (source.startsWith('/') ? '/' : source);
  return normalized === '/' || normalized.endsWith('docker.sock') || /^\/(etc|proc|sys|dev|root|var\/run|run|boot)(\/|$)/.test(normalized);
}
