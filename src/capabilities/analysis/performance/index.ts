// Performance analysis: slow algorithms, N+1 queries, leaks, bundle size, render performance.
import { type KindDefinition, recommendByCategory } from '../kind.js';
import { nonRuntimeKind } from '../code-paths.js';
import { bundleRules, checkLargeDependencies, checkWholeLibraryImports } from './bundle.js';
import { checkLeaks, leakRules } from './leaks.js';
import { checkLoops, loopRules } from './loops.js';
import { checkReact, reactRules } from './react.js';

const advice: Record<string, string> = {
  queries: 'Batch database work: one query for many rows instead of one per item, and paginate list endpoints.',
  algorithms: 'Replace repeated linear scans with Map/Set lookups built once.',
  memory: 'Clean up every timer, listener and subscription, and bound long-lived caches.',
  rendering: 'Give list items stable keys, keep props stable across renders, and declare effect dependencies.',
  bundle: 'Import only what the client uses and lazy-load heavy libraries.',
};

export const performanceKind: KindDefinition = {
  rules: [...Object.values(loopRules), ...Object.values(leakRules), ...Object.values(reactRules), ...Object.values(bundleRules)],
  analyseFile: (file) => ({ findings: [...checkLoops(file), ...checkLeaks(file), ...checkReact(file), ...checkWholeLibraryImports(file)] }),
  analyseProject: ({ view }) => checkLargeDependencies(view),
  // How fast tests, seeds and examples run is not the app's performance.
  keep: (finding) => nonRuntimeKind(finding.file) === null,
  recommend: (findings) => recommendByCategory(findings, advice),
};
