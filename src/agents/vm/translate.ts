// What the person sees of a runner event: vm-agent's progress as OutputEvents marked as the container's (terminal events are results, not output).
import type { OutputEvent, OutputLevel } from '../../output.js';
import type { RunnerEvent } from '../../runner/events.js';

const oneLine = (text: string, max = 160) => {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
};

function describeCall(name: string, input: unknown): string {
  const fields = (input ?? {}) as Record<string, unknown>;
  const subject = fields.command ?? fields.path ?? fields.query;
  return typeof subject === 'string' ? `${name} ${oneLine(subject, 120)}` : name;
}

/** Every line shown from the runner is marked as coming from the container, and made safe by the renderer. */
const origin = 'vm-agent';
const fromRunner = (text: string, level: OutputLevel = 'info'): OutputEvent => ({ type: 'output.message', level, text, origin });

/** The output for one runner event; empty for events that end the run (the supervisor reports those). */
export function runnerEventOutput(event: RunnerEvent): OutputEvent[] {
  switch (event.type) {
    case 'runner.started':
      return [fromRunner(`vm-agent started (attempt ${event.attempt}, ${event.provider} ${event.model}) in ${event.workspace}`, 'dim')];
    case 'progress':
      return [fromRunner(event.message)];
    case 'tool.call':
      return [{ type: 'output.progress', id: `vm-agent:tool:${event.id}`, label: describeCall(event.name, event.input), origin }];
    case 'tool.result':
      return [
        { type: 'output.progress', id: `vm-agent:tool:${event.id}`, label: event.display, done: true, origin },
        fromRunner(`  ${event.ok ? '·' : '✗'} ${event.display}`, event.ok ? 'dim' : 'warn'),
      ];
    case 'command.output':
      return [{ type: 'output.stream', stream: event.stream, chunk: event.chunk, origin }];
    case 'usage':
      return [{ type: 'output.progress', id: 'vm-agent:tokens', label: `tokens: ${event.total.inputTokens} in · ${event.total.outputTokens} out`, origin }];
    case 'policy.denied':
      return [fromRunner(`  policy denied ${event.tool === 'run-command' ? 'the command' : 'the path'} ${oneLine(event.subject, 120)}: ${event.reason} (${event.rule})`, 'warn')];
    // Checked against the container's cgroup and told by the host (tasks.ts), not on the runner's word.
    case 'resource.oom':
    case 'runner.finished':
    case 'runner.failed':
    case 'runner.budget-exhausted':
      return [];
  }
}
