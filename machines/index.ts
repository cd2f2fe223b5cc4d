// The registry of every statechart, for the composition root, export, inspection and model-based tests.
import { cliMachine } from './cli.machine.js';
import { containerMachine } from './container.machine.js';
import { planMachine } from './plan.machine.js';
import { poolMachine } from './pool.machine.js';
import { sessionMachine } from './session.machine.js';
import { taskMachine } from './task.machine.js';

export const machineRegistry = [
  { name: 'cli', machine: cliMachine },
  { name: 'session', machine: sessionMachine },
  { name: 'task', machine: taskMachine },
  { name: 'plan', machine: planMachine },
  { name: 'container', machine: containerMachine },
  { name: 'pool', machine: poolMachine },
] as const;

export type MachineName = (typeof machineRegistry)[number]['name'];

export { cliMachine, containerMachine, planMachine, poolMachine, sessionMachine, taskMachine };
