// The module layout's rules, checked by test/layout.test.ts: no import cycles (type-only imports included), terminal code only
// imported by the terminal and the composition root, dockerode only behind src/container.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      severity: 'error',
      comment: 'Modules import each other in one direction only (type-only imports count too).',
      from: {},
      to: { circular: true },
    },
    {
      name: 'terminal-code-stays-in-the-terminal',
      severity: 'error',
      comment: 'src/cli is the terminal: only the commands and the composition root (src/app) use it.',
      from: { path: '^(src|machines)/', pathNot: '^src/(cli|commands|app)/' },
      to: { path: '^src/cli/' },
    },
    {
      name: 'dockerode-behind-src-container',
      severity: 'error',
      comment: 'The Docker driver is src/container: everything else asks it.',
      from: { pathNot: '^src/container/' },
      to: { path: 'node_modules/(@types/)?dockerode/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    exclude: { path: '^dist/' },
  },
};
