// The analysis kinds, by name.
import type { KindDefinition } from './kind.js';
import { performanceKind } from './performance/index.js';
import { qualityKind } from './quality/index.js';
import { securityKind } from './security/kind.js';
import type { AnalysisKind } from './types.js';

export const kinds: Record<AnalysisKind, KindDefinition> = { quality: qualityKind, security: securityKind, performance: performanceKind };
