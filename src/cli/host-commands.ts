// The host subcommands of `cadre` (config, audit, machines): each loads its module only when it runs.
import type { Command } from 'commander';
import { exitCodes } from '../errors.js';
import { result } from '../output.js';
import type { GlobalOptions } from './sink.js';

type SetExitCode = (code: number) => void;

/** Options of the root program, seen from a subcommand's action. */
function globalsOf(command: Command): GlobalOptions {
  let root = command;
  while (root.parent) root = root.parent;
  return root.opts<GlobalOptions>();
}

async function withSink(command: Command, setExitCode: SetExitCode, body: (sink: import('../output.js').OutputSink, globals: GlobalOptions) => Promise<number | void>): Promise<void> {
  const { createSink, reportFailure } = await import('./sink.js');
  const globals = globalsOf(command);
  const sink = createSink({ json: globals.json, color: globals.color !== false });
  try {
    setExitCode((await body(sink, globals)) ?? exitCodes.ok);
  } catch (error) {
    setExitCode(reportFailure(error, sink));
  }
}

export function registerHostCommands(program: Command, setExitCode: SetExitCode): void {
  program
    .command('config')
    .description('show the effective configuration and where each value came from (secrets masked)')
    .action(async (_options: unknown, command: Command) =>
      withSink(command, setExitCode, async (sink, globals) => {
        const { loadConfig } = await import('../store/config.js');
        const { describeConfig, renderConfigText, withActiveProvider } = await import('../store/config-describe.js');
        const { resolveModel, describeModel } = await import('../model/resolve.js');
        const { decideFolderTrust, folderTrustNote } = await import('../app/folder-trust.js');
        const { resolvePaths } = await import('../store/paths.js');
        const trust = await decideFolderTrust({ cwd: globals.cwd, env: process.env, flag: globals.trust === true });
        const { runEnvironment } = await import('./sink.js');
        const env = runEnvironment(globals);
        const loaded = await loadConfig({ cwd: globals.cwd, env, ...(trust.trusted ? { trustedProject: trust.fingerprint } : {}) });
        const resolved = resolveModel(loaded.config.model, env);
        const description = withActiveProvider(describeConfig(loaded), resolved);
        const activeModel = describeModel(resolved);
        const trustNote = folderTrustNote(trust, resolvePaths({ cwd: globals.cwd, env: process.env }), loaded.ignored);
        sink(result('config', { ...description, activeModel }, `${renderConfigText(description)}\n\nActive model: ${activeModel}`));
        if (trustNote) sink(trustNote);
      }),
    );

  const audit = program.command('audit').description('the audit trail: where it is, what it says, whether it is intact');
  audit
    .command('path')
    .description("print the current audit log's path")
    .action(async (_options: unknown, command: Command) =>
      withSink(command, setExitCode, async (sink, globals) => {
        const { currentAuditFile } = await import('../store/audit.js');
        const file = currentAuditFile({ cwd: globals.cwd, env: process.env });
        sink(result('audit.path', { file }, file));
      }),
    );
  audit
    .command('show [file]')
    .description('print the audit log readably')
    .action(async (file: string | undefined, _options: unknown, command: Command) =>
      withSink(command, setExitCode, async (sink, globals) => {
        const { currentAuditFile, formatAuditForPeople } = await import('../store/audit.js');
        const target = file ?? currentAuditFile({ cwd: globals.cwd, env: process.env });
        const text = await formatAuditForPeople(target);
        sink(result('audit.show', { file: target }, text));
      }),
    );
  audit
    .command('verify [file]')
    .description('check the hash chain and signatures: exit 0 when intact, 1 naming the first bad record, 5 when the session ended by a crash (intact up to it)')
    .action(async (file: string | undefined, _options: unknown, command: Command) =>
      withSink(command, setExitCode, async (sink, globals) => {
        const { currentAuditFile } = await import('../store/audit.js');
        const { verifyAuditAt } = await import('../store/audit-verify.js');
        const target = file ?? currentAuditFile({ cwd: globals.cwd, env: process.env });
        const verdict = await verifyAuditAt(target, { cwd: globals.cwd, env: process.env });
        if (verdict.ok) {
          sink(result('audit.verify', { file: target, ...verdict }, `✔ ${target}: intact (${verdict.count} records${verdict.live ? ', still being written' : ''}).`));
          return exitCodes.ok;
        }
        if ('crashed' in verdict) {
          const cut = verdict.partialLine ? '; the crash cut its last line mid-record' : '';
          sink({ type: 'output.error', code: 'audit.crashed', message: `${target}: ended by a crash at ${verdict.at} (cadre pid ${verdict.pid} stopped without closing it), records up to ${verdict.count} intact${cut}.`, remedy: 'Nothing was edited: the session stopped before it could write its closing record. /resume the kept session (cadre offers it at the next start) to carry on.' });
          return exitCodes.auditCrashed;
        }
        sink({ type: 'output.error', code: 'audit.tampered', message: `${target}: record ${verdict.seq} (line ${verdict.line}) is not intact: ${verdict.reason}.`, remedy: 'The log was edited, reordered or cut after it was written; keep this copy as evidence.' });
        return exitCodes.commandFailed;
      }),
    );

  program
    .command('analyze')
    .description('offline analysis of the project (or PATH inside it): quality, security or performance')
    .argument('<kind>', 'quality, security or performance')
    .argument('[path]', 'a folder or file inside the project (default: all of it)')
    .option('--sarif <file>', 'also write the findings as SARIF 2.1.0')
    .option('--md <file>', 'also write the report as Markdown')
    .option('--advisories <file>', 'an OSV or GitHub advisory export to check dependencies against (security)')
    .option('--offline', "security: never ask npm's registry for advisories (npm's own audit=false does the same); use the bundled snapshot only")
    .option('--fail-on <severity>', 'exit 1 when a finding is at this severity or worse: critical, high, medium or low')
    .action(async (kind: string, path: string | undefined, options: { sarif?: string; md?: string; advisories?: string; offline?: boolean; failOn?: string }, command: Command) =>
      withSink(command, setExitCode, async (sink, globals) => {
        const { checkAnalysisArguments } = await import('./analyze-arguments.js');
        const checked = checkAnalysisArguments(kind, options.failOn);
        const { presentAnalysis, hasFindingAtOrAbove } = await import('../capabilities/analysis/present.js');
        const report = await presentAnalysis({
          kind: checked.kind, cwd: globals.cwd, path, advisoriesFile: options.advisories, offline: options.offline === true, sarifFile: options.sarif, markdownFile: options.md,
          color: !globals.json && globals.color !== false && Boolean(process.stdout.isTTY) && !process.env.NO_COLOR, emit: sink,
          keysDir: (await import('../store/paths.js')).resolvePaths({ cwd: globals.cwd, env: process.env }).keysDir,
        });
        return checked.failOn && hasFindingAtOrAbove(report, checked.failOn) ? exitCodes.commandFailed : exitCodes.ok;
      }),
    );

  program
    .command('policy')
    .description("the vm-agent's command and path policy")
    .command('check [command]')
    .description('print whether the policy allows a command (or a path, with --path) and the rule that decided; exit 0 allowed, 4 denied')
    .option('--path <path>', 'check a path against the workspace confinement instead of a command')
    .option('--workspace <dir>', 'the workspace paths are confined to', '/workspace')
    .action(async (commandText: string | undefined, options: { path?: string; workspace: string }, command: Command) => {
      const { policyCheck } = await import('../policy/cli.js');
      const globals = globalsOf(command);
      const checked = await policyCheck({ command: commandText, path: options.path, json: Boolean(globals.json), workspace: options.workspace });
      process.stdout.write(`${checked.text}\n`);
      setExitCode(checked.exitCode);
    });

  program
    .command('vm')
    .description("vm-agent's containers")
    .command('image')
    .description('the sandbox image')
    .command('build')
    .description('build the sandbox image cadre-sandbox:<version>-<recipe> (reused while its recipe hash matches)')
    .option('--force', 'rebuild even when an image with the same recipe exists')
    .action(async (options: { force?: boolean }, command: Command) =>
      withSink(command, setExitCode, async (sink) => {
        const [{ createDockerClient }, { buildSandboxImage }, { cadreVersion }] = await Promise.all([
          import('../container/docker-client.js'), import('../container/sandbox-image.js'), import('../version.js'),
        ]);
        const built = await buildSandboxImage({ docker: createDockerClient(), onEvent: sink, force: Boolean(options.force), version: cadreVersion });
        sink(result('vm.image', built, built.reused
          ? `✔ ${built.image} is up to date (recipe ${built.recipe}): reused, nothing built. --force rebuilds it.`
          : built.shipped ? `✔ Shipped ${built.image} (recipe ${built.recipe}) from this machine's engine to ${built.shipped.to} in ${(built.shipped.ms / 1000).toFixed(1)} s.`
          : `✔ Built ${built.image} (recipe ${built.recipe}).`));
      }),
    );

  program
    .command('trace')
    .description('recorded actor traces (cadre --trace FILE)')
    .command('replay <file>')
    .description('serve a recorded trace to the Stately inspector on 127.0.0.1 until Ctrl-C')
    .action(async (file: string, _options: unknown, command: Command) =>
      withSink(command, setExitCode, async (sink) => {
        const { startInspector, replayTrace } = await import('../inspect/relay.js');
        const inspector = await startInspector();
        try {
          const count = await replayTrace({ file, relayUrl: inspector.relayUrl });
          sink(result('trace.replay', { file, events: count, url: inspector.url }, `Replayed ${count} events from ${file}.\nOpen ${inspector.url} to view them; Ctrl-C stops the relay.`));
          await new Promise<void>((resolve) => process.once('SIGINT', () => resolve()));
        } finally {
          await inspector.stop();
        }
      }),
    );

  program
    .command('machines')
    .description("the statecharts behind cadre's actors")
    .command('export [name]')
    .description('print each statechart (or one) for viewing')
    .option('--format <format>', 'json or mermaid', 'json')
    .action(async (name: string | undefined, options: { format: string }, command: Command) =>
      withSink(command, setExitCode, async (sink) => {
        const { exportMachines } = await import('../inspect/machines-export.js');
        const exported = exportMachines({ name, format: options.format });
        sink(result('machines.export', exported.data, exported.text));
      }),
    );
}
