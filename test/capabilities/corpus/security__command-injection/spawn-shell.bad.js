import { spawn } from 'node:child_process';
export function ping(req, res) {
  spawn('ping -c 1 ' + req.params.host, { shell: true }).on('close', () => res.end());
}
