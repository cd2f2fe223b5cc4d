// The command registry: every slash command cadre knows, in the order /help lists them.
import type { CommandDefinition } from './types.js';
import { agentCommand } from './agent.js';
import { agentsCommand } from './agents.js';
import { execCommand } from './exec.js';
import { autoCommand } from './auto.js';
import { undoCommand } from './undo.js';
import { cancelCommand } from './cancel.js';
import { analyzeProjectCommand } from './analyze-project.js';
import { saveCommand } from './save.js';
import { resumeCommand } from './resume.js';
import { sessionsCommand } from './sessions.js';
import { statusCommand } from './status.js';
import { modelCommand } from './model.js';
import { compactCommand } from './compact.js';
import { mcpCommand } from './mcp.js';
import { trustCommand } from './trust.js';
import { initCommand } from './init.js';
import { vmCreateCommand } from './vm-create.js';
import { vmStatusCommand } from './vm-status.js';
import { vmRestartCommand } from './vm-restart.js';
import { vmMonitorCommand } from './vm-monitor.js';
import { vmCleanupCommand } from './vm-cleanup.js';
import { vmConfigCommand } from './vm-config.js';
import { vmCreatePrCommand } from './vm-create-pr.js';
import { vmSetupDevCommand } from './vm-setup-dev.js';
import { vmEditorCommand } from './vm-editor.js';
import { vmInstallDepsCommand } from './vm-install-deps.js';
import { systemStatusCommand } from './system-status.js';
import { testConnectivityCommand } from './test-connectivity.js';
import { systemResourcesCommand } from './system-resources.js';
import { helpCommand } from './help.js';
import { exitCommand } from './exit.js';

export const commandRegistry: readonly CommandDefinition[] = [
  agentCommand,
  agentsCommand,
  execCommand,
  autoCommand,
  undoCommand,
  cancelCommand,
  analyzeProjectCommand,
  initCommand,
  saveCommand,
  resumeCommand,
  sessionsCommand,
  statusCommand,
  modelCommand,
  compactCommand,
  mcpCommand,
  trustCommand,
  vmCreateCommand,
  vmStatusCommand,
  vmRestartCommand,
  vmMonitorCommand,
  vmCleanupCommand,
  vmConfigCommand,
  vmCreatePrCommand,
  vmSetupDevCommand,
  vmEditorCommand,
  vmInstallDepsCommand,
  systemStatusCommand,
  testConnectivityCommand,
  systemResourcesCommand,
  helpCommand,
  exitCommand,
];

export function findCommand(registry: readonly CommandDefinition[], name: string): CommandDefinition | undefined {
  return registry.find((c) => c.name === name || c.aliases?.includes(name));
}
