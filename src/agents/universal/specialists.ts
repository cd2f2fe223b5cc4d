// universal-agent's internal specialists (not registered agents): their instructions and the words that route to them.

export type SpecialistName = 'react' | 'frontend' | 'backend' | 'devops';

export interface Specialist {
  name: SpecialistName;
  /** Words in a task that point to this specialist. */
  keywords: RegExp;
  /** Frameworks in the project context that make it the natural choice. */
  frameworks: RegExp;
  instructions: string;
}

export const specialists: readonly Specialist[] = [
  {
    name: 'react',
    keywords: /\b(react|jsx|tsx|hooks?|props|component|next\.?js|redux|zustand|context provider|storybook)\b/gi,
    frameworks: /react|next/i,
    instructions: 'You are working as the React specialist. Components are function components with a typed props interface, local state with hooks, event handlers named handleX, styling in the project\'s existing approach (CSS modules, Tailwind, styled-components, …), and exports matching the neighbouring files. Tests use the project\'s runner and Testing Library when present.',
  },
  {
    name: 'frontend',
    keywords: /\b(css|scss|styles?|layout|responsive|html|page|ui|ux|accessib\w*|a11y|components?|theme|dark mode|vue|svelte|angular|tailwind|animation|form)\b/gi,
    frameworks: /vue|svelte|angular|nuxt|astro|solid/i,
    instructions: 'You are working as the frontend specialist. Follow the project\'s framework, theming (CSS variables, Tailwind, a theme object) and component conventions; keep markup accessible (labels, roles, keyboard use) and styles consistent with existing ones.',
  },
  {
    name: 'backend',
    keywords: /\b(api|endpoints?|routes?|server|handlers?|middleware|controllers?|database|db|schema|sql|orm|prisma|drizzle|sequelize|typeorm|mongoose|express|fastify|hono|koa|nest\w*|rest|graphql|queue|validation|auth\w*)\b/gi,
    frameworks: /express|fastify|hono|koa|nest|prisma|drizzle|sequelize|typeorm|mongoose/i,
    instructions: 'You are working as the backend specialist. Endpoints get a route handler, input validation, error handling with proper status codes, typed request/response shapes, database access through the project\'s ORM or query layer, and consistent response formatting. Schemas follow the project\'s ORM (or plain SQL when there is none).',
  },
  {
    name: 'devops',
    keywords: /\b(docker\w*|containers?|ci|cd|pipelines?|deploy\w*|kubernetes|k8s|helm|workflows?|github actions|terraform|nginx|build scripts?|release|env(ironment)? variables?|monitoring)\b/gi,
    frameworks: /^$/,
    instructions: 'You are working as the DevOps specialist. Keep build, CI and container files minimal and reproducible; pin versions; never put secrets in files (use environment variables or the CI\'s secret store); explain how to run what you add.',
  },
];

/** Instructions for universal-agent's capability categories; config may add more. */
export const capabilityInstructions: Record<string, string> = {
  'code generation': 'Generate code in the project\'s style: match naming, file layout, module format and formatting of the neighbouring files.',
  refactoring: 'Refactor without changing behaviour: keep public APIs and tests passing; after staging, ask the user to run the tests with /exec and read the result on the next turn.',
  testing: 'Write unit, integration or end-to-end browser tests in the runner the project already uses; put them where its existing tests live.',
  documentation: 'Document with README sections (setup, usage), API docs, doc comments on exported symbols, usage examples; keep docs next to what they describe.',
  debugging: 'Diagnose from the error text or /exec output: name the cause, stage the fix, explain it, and suggest how to confirm it with /exec.',
};
