// Look-alike Unicode: invisible characters, odd spaces and letters that imitate ASCII command names.

/** Zero-width, bidirectional, format and control characters (tab and newline excepted), as code point ranges. */
const invisibleRanges: [number, number][] = [
  [0x00, 0x08], [0x0b, 0x1f], [0x7f, 0x9f], [0xad, 0xad], [0x34f, 0x34f], [0x61c, 0x61c], [0x115f, 0x1160],
  [0x17b4, 0x17b5], [0x180b, 0x180f], [0x200b, 0x200f], [0x202a, 0x202e], [0x2060, 0x206f], [0x3164, 0x3164],
  [0xfe00, 0xfe0f], [0xfeff, 0xfeff], [0xffa0, 0xffa0], [0xfff0, 0xfffb], [0xe0000, 0xe007f], [0xe0100, 0xe01ef],
];

function isInvisible(char: string): boolean {
  const code = char.codePointAt(0) ?? 0;
  return invisibleRanges.some(([low, high]) => code >= low && code <= high);
}

/** Characters that render as a space but are not one for the shell. */
const oddSpace = /[\u00A0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000]/u;

/** Letters and signs commonly used to imitate ASCII (Cyrillic, Greek, Armenian, dashes, …). */
const confusables: Record<string, string> = {
  а: 'a', в: 'b', е: 'e', ё: 'e', һ: 'h', і: 'i', ї: 'i', ј: 'j', к: 'k', м: 'm', н: 'h', о: 'o', р: 'p',
  с: 'c', ѕ: 's', т: 't', у: 'y', х: 'x', ԁ: 'd', ԛ: 'q', ԝ: 'w', ѵ: 'v', ɡ: 'g', ӏ: 'l', ո: 'n', ս: 'u',
  α: 'a', β: 'b', ε: 'e', ι: 'i', κ: 'k', ν: 'v', ο: 'o', ρ: 'p', τ: 't', υ: 'u', χ: 'x', ϲ: 'c', ϳ: 'j',
  А: 'A', В: 'B', Е: 'E', К: 'K', М: 'M', Н: 'H', О: 'O', Р: 'P', С: 'C', Т: 'T', Х: 'X', Ѕ: 'S', І: 'I',
  '\u2010': '-', '\u2011': '-', '\u2012': '-', '\u2013': '-', '\u2014': '-', '\u2015': '-', '\u2212': '-',
  '\uFE63': '-', '\u00B7': '.', '\u2024': '.', '\u2215': '/', '\u2044': '/', '\u29F8': '/',
};

export function hasInvisibleCharacter(text: string): boolean {
  return [...text].some(isInvisible);
}

export function hasOddSpace(text: string): boolean {
  return oddSpace.test(text);
}

export function isAscii(text: string): boolean {
  return !/[\u0080-\u{10FFFF}]/u.test(text);
}

/** What a word looks like to a person: compatibility forms folded (fullwidth → ASCII) and confusables mapped. */
export function skeleton(text: string): string {
  return [...text.normalize('NFKC')].map((char) => confusables[char] ?? char).join('');
}

/** Describes the first invisible or odd character, e.g. "U+200B". */
export function describeOddCharacter(text: string): string {
  for (const char of text) {
    if (isInvisible(char) || oddSpace.test(char)) {
      return `U+${(char.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;
    }
  }
  return 'none';
}
