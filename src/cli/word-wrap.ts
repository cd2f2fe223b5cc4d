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

/**
 * Word wrapping for text that arrives in pieces (a model's streamed answer): a word is written once it is whole (a space or
 * a line end follows it), on the current line when it fits and else on the next; spaces at a break are dropped, a line's
 * leading spaces kept. `flush` writes the word held back (the stream paused for a tool call, or ended).
 */
export function createStreamWrap(width: number): { feed(text: string): string; flush(): string; midLine(): boolean } {
  let column = 0;
  let word = '';
  let spaces = 0;
  const placeWord = (): string => {
    if (!word) return '';
    const length = visible(word);
    let out: string;
    if (column > 0 && column + spaces + length > width) {
      out = `\n${word}`;
      column = length;
    } else {
      out = ' '.repeat(spaces) + word;
      column += spaces + length;
    }
    word = '';
    spaces = 0;
    return out;
  };
  return {
    feed(text) {
      if (width < 20) return text;
      let out = '';
      for (const char of text) {
        if (char === '\n') {
          out += `${placeWord()}\n`;
          column = 0;
          spaces = 0;
        } else if (char === ' ') {
          if (word) out += placeWord();
          if (column === 0) {
            out += ' ';
            column = 1;
            continue;
          }
          spaces += 1;
        } else {
          word += char;
        }
      }
      return out;
    },
    flush() {
      const out = placeWord() + ' '.repeat(spaces);
      column += spaces;
      spaces = 0;
      return out;
    },
    midLine: () => column > 0 || word !== '' || spaces > 0,
  };
}
