// What kind of code a path holds: tests and fixtures, examples, scripts; read without loading the parser.

/** Test, fixture and story files: some rules (secrets, smells) treat them differently. */
export function isTestPath(path: string): boolean {
  return /(?:^|\/)(?:__tests__|__mocks__|tests?|[\w-]*[-_]tests?|integrationtests?|unittests?|spec|fixtures?|e2e|cypress|mocks?|stories|\.storybook)\/|\.(?:test|spec|stories|story|e2e|mock)\.[cm]?[jt]sx?$/.test(path);
}

/** Code that does not run in the app: tests and their fixtures, stories, examples, documentation and code-fix snippets. Null for runtime code. */
export function nonRuntimeKind(path: string): string | null {
  if (isTestPath(path)) return 'test code';
  if (/(?:^|\/)(?:scripts?|seeds?|seeders?|migrations?)\/|(?:^|\/)seed\.[cm]?[jt]s$/.test(path)) return 'script';
  if (/(?:^|\/)(?:examples?|samples?|demos?|docs?|snippets?|codefixes|code-fixes)\//i.test(path) || /\.md$/.test(path)) return 'example code';
  return null;
}
