/**
 * Terraform's logs carry ANSI colour codes (`\x1b[1m\x1b[32m+ create\x1b[0m`). This turns a log into text
 * segments with the colour and weight in effect, for the page to render as <span>s: text stays text (no
 * HTML is ever built from a log, so nothing in it can become markup), and escapes never show raw.
 *
 * Written here rather than taken from a library: the libraries (ansi-to-html, anser) build HTML strings
 * that the page would have to inject; terraform uses only SGR (colour, bold, underline) and this is the
 * whole of it. Every other escape sequence (cursor movement, erase, OSC titles) is dropped. Pure, no DOM,
 * so test/unit loads it directly.
 */
export interface AnsiSegment {
  text: string;
  /** 'red', 'green', …, or null for the default colour. */
  color: string | null;
  bold: boolean;
  underline: boolean;
}

const COLORS = ['black', 'red', 'green', 'yellow', 'blue', 'magenta', 'cyan', 'white'] as const;

interface Style {
  color: string | null;
  bold: boolean;
  underline: boolean;
}

/** CSI … final byte (SGR ends in `m`), or OSC … BEL/ST, or a lone two-byte escape. */
const ESCAPE = /\x1b(?:\[([0-9;:?]*)([@-~])|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])/g;

/**
 * Control bytes that are not text: the STX (0x02) and ETX (0x03) that frame every log HCP's protocol sends
 * (they showed as a box glyph at the log's start), NUL, BEL, DEL… Tab, line feed and carriage return stay;
 * ESC is read as the start of a sequence below.
 */
const CONTROL_BYTES = /[\x00-\x08\x0b\x0c\x0e-\x1a\x1c-\x1f\x7f]/g;

export function parseAnsi(log: string): AnsiSegment[] {
  const segments: AnsiSegment[] = [];
  let style: Style = { color: null, bold: false, underline: false };
  let last = 0;
  const push = (raw: string) => {
    // Stripped between the escape sequences, not before: an OSC title ends in BEL, itself a control byte.
    const text = raw.replace(CONTROL_BYTES, '');
    if (!text) return;
    const previous = segments[segments.length - 1];
    if (previous && previous.color === style.color && previous.bold === style.bold && previous.underline === style.underline) previous.text += text;
    else segments.push({ text, ...style });
  };
  for (const match of log.matchAll(ESCAPE)) {
    push(log.slice(last, match.index));
    last = match.index! + match[0].length;
    if (match[2] === 'm') style = applySgr(style, match[1] ?? '');
  }
  // A stray ESC that starts no known sequence is dropped too, so it never shows as a box.
  push(log.slice(last).replace(/\x1b/g, ''));
  return segments;
}

function applySgr(current: Style, parameters: string): Style {
  const style = { ...current };
  const codes = parameters === '' ? [0] : parameters.split(/[;:]/).map((code) => Number(code || 0));
  for (let index = 0; index < codes.length; index++) {
    const code = codes[index]!;
    if (code === 0) Object.assign(style, { color: null, bold: false, underline: false });
    else if (code === 1) style.bold = true;
    else if (code === 22) style.bold = false;
    else if (code === 4) style.underline = true;
    else if (code === 24) style.underline = false;
    else if (code >= 30 && code <= 37) style.color = COLORS[code - 30]!;
    else if (code >= 90 && code <= 97) style.color = COLORS[code - 90]!;
    else if (code === 39) style.color = null;
    // 256-colour and true-colour forms (38;5;n, 38;2;r;g;b and the 48 background ones): skip their arguments.
    else if ((code === 38 || code === 48) && codes[index + 1] === 5) index += 2;
    else if ((code === 38 || code === 48) && codes[index + 1] === 2) index += 4;
  }
  return style;
}
