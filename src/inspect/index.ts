// --inspect and --trace: one inspection callback for the root actor that feeds the Stately inspector and/or a trace file.
import type { InspectionEvent, Observer } from 'xstate';
import type { OutputSink } from '../output.js';

type InspectTarget = ((event: InspectionEvent) => void) | Observer<InspectionEvent>;

export interface Inspection {
  inspect: (event: InspectionEvent) => void;
  stop(): Promise<void>;
}

export async function startInspection({ inspect, traceFile, sink }: { inspect: boolean; traceFile?: string; sink: OutputSink }): Promise<Inspection> {
  const targets: InspectTarget[] = [];
  const stops: (() => Promise<void>)[] = [];
  const { startInspector, createTraceRecorder } = await import('./relay.js');
  if (traceFile) {
    const recorder = createTraceRecorder(traceFile);
    targets.push(recorder.inspect);
    stops.push(() => recorder.close());
    sink({ type: 'output.message', level: 'dim', text: `Recording actor events to ${traceFile}.` });
  }
  if (inspect) {
    const inspector = await startInspector();
    targets.push(inspector.inspect as InspectTarget);
    stops.push(() => inspector.stop());
    sink({ type: 'output.message', level: 'info', text: `Stately inspector: open ${inspector.url}` });
  }
  return {
    inspect: (event) => {
      for (const target of targets) {
        if (typeof target === 'function') target(event);
        else target.next?.(event);
      }
    },
    stop: async () => {
      for (const stop of stops) await stop();
    },
  };
}
