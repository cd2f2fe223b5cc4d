// Wraps cadre's own lines at word boundaries for a narrow terminal (the terminal itself would cut words in two).

// eslint-disable-next-line no-control-regex
const escapes = /\x1b\[[0-9;?]*[A-Za-z]/g;
const visible = (text: string): number => [...text.replace(escapes, '')].length;

/**
 * Each line longer than `width` columns is broken at spaces, its continuation lines indented as the line is (so
 * "  → remedy" and list items keep their column). A word longer than the width stays whole on its own line.
 */
export function wrapWords(text: string, width: number): string {
  if (width < 20) return text;
  return text.split('\n').map((line) => {
    if (visible(line) <= width) return line;
    const indent = /^\s*/.exec(line)?.[0] ?? '';
    const words = line.slice(indent.length).split(/ +/);
    const rows: string[] = [];
    let row = indent;
    for (const word of words) {
      if (row.trim() !== '' && visible(row) + 1 + visible(word) > width) {
        rows.push(row);
        row = indent + word;
      } else {
        row = row.trim() === '' ? indent + word : `${row} ${word}`;
      }
    }
    rows.push(row);
    return rows.join('\n');
  }).join('\n');
}
