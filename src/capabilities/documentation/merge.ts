// Generated documentation merges into what people wrote: their text is kept as it is, sections cadre wrote before are refreshed, sections they lack are added.
/** A markdown document as its title block and its `##` sections. */
type Section = { heading: string; body: string };

const marker = (name: string): { open: string; close: string } => ({ open: `<!-- cadre:${name} -->`, close: `<!-- /cadre:${name} -->` });

/** Headings that mean the same section, so a person's "Installation" stands for cadre's "Setup". */
const synonyms: string[][] = [
  ['setup', 'installation', 'install', 'getting started', 'quick start', 'quickstart', 'usage'],
  ['environment variables', 'environment', 'configuration', 'config', 'env'],
  ['scripts', 'commands', 'available scripts', 'npm scripts'],
  ['http api', 'api', 'endpoints', 'routes', 'rest api', 'http routes'],
  ['project layout', 'project structure', 'structure', 'folder structure', 'layout'],
  ['modules', 'reference', 'api reference'],
];

function key(heading: string): string {
  const plain = heading.replace(/^#+\s*/, '').replace(/[`*_:]/g, '').trim().toLowerCase();
  return synonyms.find((group) => group.includes(plain))?.[0] ?? plain;
}

function sections(markdown: string): { title: string; sections: Section[] } {
  const parts = markdown.split(/^(?=## )/m);
  const title = /^## /.test(parts[0] ?? '') ? '' : parts.shift() ?? '';
  return { title, sections: parts.map((part) => ({ heading: part.split('\n')[0] ?? '', body: part.slice((part.split('\n')[0] ?? '').length + 1) })) };
}

const slug = (heading: string): string => key(heading).replace(/[^a-z0-9]+/g, '-');

/** The generated document with each section between markers, so a later run can refresh exactly what cadre wrote. */
export function marked(generated: string): string {
  const parsed = sections(generated);
  return `${parsed.title}${parsed.sections.map((section) => `${marker(slug(section.heading)).open}\n${section.heading}\n${section.body.replace(/\n*$/, '\n')}${marker(slug(section.heading)).close}\n\n`).join('')}`.replace(/\n+$/, '\n');
}

export type Merge = { content: string; added: string[]; refreshed: string[]; kept: string[] };

/**
 * Merges a generated document into an existing one: the person's title and sections stay byte for byte; a section cadre wrote
 * before (between its markers) is replaced by the new one; a section the document lacks (by heading, synonyms included) is
 * appended; a section the person wrote under the same heading wins over cadre's.
 */
export function mergeDocument(existing: string, generated: string): Merge {
  const fresh = sections(generated).sections;
  let content = existing.replace(/\s*$/, '\n');
  const added: string[] = [];
  const refreshed: string[] = [];
  const kept: string[] = [];
  const existingHeadings = new Map(sections(existing.replace(/<!-- \/?cadre:[\w-]+ -->\n?/g, '')).sections.map((section) => [key(section.heading), section.heading.replace(/^#+\s*/, '')]));
  for (const section of fresh) {
    const { open, close } = marker(slug(section.heading));
    const block = `${open}\n${section.heading}\n${section.body.replace(/\n*$/, '\n')}${close}`;
    const start = content.indexOf(open);
    const end = start === -1 ? -1 : content.indexOf(close, start);
    if (start !== -1 && end !== -1) {
      const previous = content.slice(start, end + close.length);
      if (previous !== block) refreshed.push(section.heading.replace(/^#+\s*/, ''));
      content = `${content.slice(0, start)}${block}${content.slice(end + close.length)}`;
    } else if (existingHeadings.has(key(section.heading))) {
      kept.push(existingHeadings.get(key(section.heading)) as string);
    } else {
      added.push(section.heading.replace(/^#+\s*/, ''));
      content = `${content.replace(/\n*$/, '\n')}\n${block}\n`;
    }
  }
  return { content, added, refreshed, kept };
}
