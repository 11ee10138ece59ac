/**
 * Where a JSON text stops being valid, counted as Python's `json` module counts it: FastAPI puts
 * `JSONDecodeError.pos` in the 422's `loc` (`["body", <pos>]`), and V8's `JSON.parse` messages
 * often carry no position at all ("Unexpected token '}', … is not valid JSON").
 *
 * Positions follow CPython's scanner: "Expecting value" at the first character of the bad value,
 * a missing delimiter at the character found instead, an unterminated string at its opening
 * quote, an invalid escape at its backslash. They count code points, as Python strings do.
 */

const WHITESPACE = new Set([" ", "\t", "\n", "\r"]);
const SIMPLE_ESCAPES = new Set(['"', "\\", "/", "b", "f", "n", "r", "t"]);
const LITERALS = ["null", "true", "false"];
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?/y;
const HEX4 = /^[0-9a-fA-F]{4}$/;

/** The code-point position of the first error in `text`, or undefined when `text` is valid JSON. */
export function jsonErrorPosition(text: string): number | undefined {
  const offset = jsonErrorOffset(text);
  return offset === undefined ? undefined : codePointIndex(text, offset);
}

function codePointIndex(text: string, utf16Offset: number): number {
  let count = 0;
  for (let i = 0; i < utf16Offset && i < text.length; i++) {
    const unit = text.charCodeAt(i);
    // A high surrogate followed by a low one is one code point.
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < utf16Offset) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    count++;
  }
  return count;
}

function skipWhitespace(text: string, i: number): number {
  while (i < text.length && WHITESPACE.has(text[i] as string)) i++;
  return i;
}

type Scan = { next: number } | { error: number };

function scanString(text: string, start: number): Scan {
  let i = start + 1;
  for (;;) {
    if (i >= text.length) return { error: start };
    const char = text[i] as string;
    if (char === '"') return { next: i + 1 };
    if (char.charCodeAt(0) < 0x20) return { error: i };
    if (char !== "\\") {
      i++;
      continue;
    }
    const escape = text[i + 1];
    if (escape === undefined) return { error: start };
    if (escape === "u") {
      // Python also wants a character after the four digits (the closing quote at least).
      if (i + 6 >= text.length || !HEX4.test(text.slice(i + 2, i + 6))) return { error: i + 1 };
      i += 6;
    } else if (SIMPLE_ESCAPES.has(escape)) {
      i += 2;
    } else {
      return { error: i };
    }
  }
}

/** `"key"` `:` and the whitespace after it; `i` is where the key should start. */
function scanKeyAndColon(text: string, i: number): Scan {
  if (text[i] !== '"') return { error: i };
  const key = scanString(text, i);
  if ("error" in key) return key;
  const colon = skipWhitespace(text, key.next);
  if (text[colon] !== ":") return { error: colon };
  return { next: skipWhitespace(text, colon + 1) };
}

/** Iterative (an explicit stack of open containers), so deeply nested input cannot overflow. */
function jsonErrorOffset(text: string): number | undefined {
  const open: ("{" | "[")[] = [];
  let i = skipWhitespace(text, 0);
  for (;;) {
    // A value starts at i.
    const char = text[i];
    if (char === "{") {
      i = skipWhitespace(text, i + 1);
      if (text[i] === "}") {
        i++;
      } else {
        const key = scanKeyAndColon(text, i);
        if ("error" in key) return key.error;
        open.push("{");
        i = key.next;
        continue;
      }
    } else if (char === "[") {
      i = skipWhitespace(text, i + 1);
      if (text[i] === "]") {
        i++;
      } else {
        open.push("[");
        continue;
      }
    } else if (char === '"') {
      const string = scanString(text, i);
      if ("error" in string) return string.error;
      i = string.next;
    } else {
      const literal = LITERALS.find((word) => text.startsWith(word, i));
      NUMBER.lastIndex = i;
      const number = literal ? null : NUMBER.exec(text);
      if (literal) i += literal.length;
      else if (number) i += number[0].length;
      else return i;
    }

    // A value ended before i: close containers until another value is due.
    for (;;) {
      i = skipWhitespace(text, i);
      const container = open.at(-1);
      if (container === undefined) return i < text.length ? i : undefined;
      const closer = container === "{" ? "}" : "]";
      if (text[i] === closer) {
        open.pop();
        i++;
        continue;
      }
      if (text[i] !== ",") return i;
      i = skipWhitespace(text, i + 1);
      if (container === "{") {
        const key = scanKeyAndColon(text, i);
        if ("error" in key) return key.error;
        i = key.next;
      }
      break;
    }
  }
}
