// What /vm-install-deps says about hosts the gateway refused during an install that still succeeded.
import { expect, it } from 'vitest';
import { refusedDuringInstall } from '../../src/container/install-failure.js';

const refusal = (host: string, port = 443) => ({ host, port, rule: 'not-allowlisted', reason: `${host} is not the repository host, a configured registry or an allowed domain` });

it('says nothing when nothing was refused', () => {
  expect(refusedDuringInstall('vm-1a2b', [])).toBeUndefined();
});

it('names each refused host once, with the command that allows them', () => {
  const text = refusedDuringInstall('vm-1a2b', [refusal('download.cypress.io'), refusal('download.cypress.io'), refusal('fonts.example.test', 80)]);
  expect(text).toContain('the gateway refused download.cypress.io:443, fonts.example.test:80 while it ran');
  expect(text).toContain('/vm-config --allowed-domains "download.cypress.io,fonts.example.test" --container vm-1a2b');
});
