// What /vm-install-deps says about hosts the gateway refused during an install, and about a tool that went around the proxy.
import { describe, expect, it } from 'vitest';
import { directConnections, explainInstallFailure, refusedDuringInstall } from '../../src/container/install-failure.js';

const refusal = (host: string, port = 443) => ({ host, port, rule: 'not-allowlisted', reason: `${host} is not the repository host, a configured registry or an allowed domain` });

it('says nothing when nothing was refused', () => {
  expect(refusedDuringInstall('vm-1a2b', [])).toBeUndefined();
});

it('names each refused host once, with the command that allows them', () => {
  const text = refusedDuringInstall('vm-1a2b', [refusal('download.cypress.io'), refusal('download.cypress.io'), refusal('fonts.example.test', 80)]);
  expect(text).toContain('the gateway refused download.cypress.io:443, fonts.example.test:80 while it ran');
  expect(text).toContain('/vm-config --allowed-domains "download.cypress.io,fonts.example.test" --container vm-1a2b');
});

describe('a tool that went around the proxy', () => {
  // yarn 4's own output in the sandbox before it had its proxy variables (the registry's host name replaced).
  const berryOutput = [
    '➤ YN0000: · Yarn 4.18.1',
    '➤ YN0000: ┌ Resolution step',
    '➤ YN0001: │ RequestError: getaddrinfo EAI_AGAIN registry.example.test',
    '    at ClientRequest.<anonymous> (/workspace/.cadre-tools/lib/node_modules/@yarnpkg/cli-dist/bin/yarn.js:148:14258)',
    '    at GetAddrInfoReqWrap.onlookupall [as oncomplete] (node:dns:122:26)',
    '➤ YN0000: └ Completed in 7s 214ms',
    '➤ YN0000: · Failed with errors in 7s 236ms',
  ].join('\n');

  it('names the host it tried to reach on its own instead of saying the allowlist is not the cause', () => {
    const error = explainInstallFailure({ id: 'vm-1', command: ['yarn', 'install'], exitCode: 1, output: berryOutput, refused: [], ignoreScripts: false });
    expect(error.message).toContain('registry.example.test (EAI_AGAIN) directly');
    expect(error.message).not.toMatch(/allowlist is not the cause/);
    expect(error.remedy).toMatch(/ignores the proxy variables/);
  });

  it('says the allowlist is not the cause only when nothing was refused and no connection failed', () => {
    const error = explainInstallFailure({ id: 'vm-1', command: ['npm', 'ci'], exitCode: 1, output: 'npm error code EUSAGE\nnpm error `npm ci` can only install with an existing package-lock.json', refused: [], ignoreScripts: false });
    expect(error.message).toMatch(/no failed connection, so the allowlist is not the cause/);
    expect(directConnections('connect ECONNREFUSED 127.0.0.1:4101')).toEqual([]);
    expect(directConnections('connect ETIMEDOUT 10.1.2.3:443')).toEqual([{ host: '10.1.2.3:443', code: 'ETIMEDOUT' }]);
  });
});
