/**
 * Where a JSON text stops being valid, counted as Python's `json` module counts it: FastAPI puts
 * `JSONDecodeError.pos` in the 422's `loc` (`["body", <pos>]`), and V8's `JSON.parse` messages
 * often carry no position at all ("Unexpected token '}', … is not valid JSON").
 *
 * Positions follow CPython's scanner: "Expecting value" at the first character of the bad value,
 * a missing delimiter at the character found instead, an unterminated string at its opening
 * quote, an invalid escape at its backslash. They count code points, as Python strings do.
 *
 * What was expected there is said as pydantic says it (its JSON parser's words): `Invalid JSON:
 * expected value at line 1 column 7`, `Invalid JSON: expected \`,\` or \`}\` at line 1 column 9`,
 * `Invalid JSON: EOF while parsing a string at line 1 column 1`, … (see {@link jsonSyntaxError}).
 */

const WHITESPACE = new Set([" ", "\t", "\n", "\r"]);
const SIMPLE_ESCAPES = new Set(['"', "\\", "/", "b", "f", "n", "r", "t"]);
const LITERALS = ["null", "true", "false"];
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?/y;
const HEX4 = /^[0-9a-fA-F]{4}$/;

/** The code-point position of the first error in `text`, or undefined when `text` is valid JSON. */
export function jsonErrorPosition(text: string): number | undefined {
  return jsonSyntaxError(text)?.position;
}

/** The first error of a JSON text: where (code points) and a sentence of what was expected there. */
export interface JsonSyntaxError {
  position: number;
  /** `Invalid JSON: <what was expected> at line <l> column <c>` (both from 1). */
  msg: string;
}

/** The first error in `text`, or undefined when `text` is valid JSON. */
export function jsonSyntaxError(text: string): JsonSyntaxError | undefined {
  const error = jsonErrorOffset(text);
  if (error === undefined) return undefined;
  const position = codePointIndex(text, error.at);
  const lineStart = text.lastIndexOf("\n", error.at - 1) + 1;
  const line = countNewlines(text, lineStart) + 1;
  const column = codePointIndex(text.slice(lineStart), error.at - lineStart) + 1;
  return { position, msg: `Invalid JSON: ${error.expected} at line ${line} column ${column}` };
}

function countNewlines(text: string, end: number): number {
  let count = 0;
  for (let i = text.indexOf("\n"); i !== -1 && i < end; i = text.indexOf("\n", i + 1)) count++;
  return count;
}

/** A UTF-16 offset and what was expected there. */
interface ScanError {
  at: number;
  expected: string;
}

const EOF_IN_STRING = "EOF while parsing a string";

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

type Scan = { next: number } | { error: ScanError };

const fail = (at: number, expected: string): { error: ScanError } => ({ error: { at, expected } });

function scanString(text: string, start: number): Scan {
  let i = start + 1;
  for (;;) {
    if (i >= text.length) return fail(start, EOF_IN_STRING);
    const char = text[i] as string;
    if (char === '"') return { next: i + 1 };
    if (char.charCodeAt(0) < 0x20) return fail(i, "control character (\\u0000-\\u001F) found while parsing a string");
    if (char !== "\\") {
      i++;
      continue;
    }
    const escape = text[i + 1];
    if (escape === undefined) return fail(start, EOF_IN_STRING);
    if (escape === "u") {
      // Python also wants a character after the four digits (the closing quote at least).
      if (i + 6 >= text.length || !HEX4.test(text.slice(i + 2, i + 6))) return fail(i + 1, "invalid unicode escape: expected 4 hex digits");
      i += 6;
    } else if (SIMPLE_ESCAPES.has(escape)) {
      i += 2;
    } else {
      return fail(i, "invalid escape");
    }
  }
}

/** `"key"` `:` and the whitespace after it; `i` is where the key should start. */
function scanKeyAndColon(text: string, i: number): Scan {
  if (text[i] !== '"') return fail(i, i >= text.length ? "EOF while parsing an object" : "key must be a string");
  const key = scanString(text, i);
  if ("error" in key) return key;
  const colon = skipWhitespace(text, key.next);
  if (text[colon] !== ":") return fail(colon, colon >= text.length ? "EOF while parsing an object" : "expected `:`");
  return { next: skipWhitespace(text, colon + 1) };
}

/** Iterative (an explicit stack of open containers), so deeply nested input cannot overflow. */
function jsonErrorOffset(text: string): ScanError | undefined {
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
      else return { at: i, expected: i >= text.length ? "EOF while parsing a value" : "expected value" };
    }

    // A value ended before i: close containers until another value is due.
    for (;;) {
      i = skipWhitespace(text, i);
      const container = open.at(-1);
      if (container === undefined) return i < text.length ? { at: i, expected: "trailing characters" } : undefined;
      const closer = container === "{" ? "}" : "]";
      if (text[i] === closer) {
        open.pop();
        i++;
        continue;
      }
      if (text[i] !== ",") {
        if (i >= text.length) return { at: i, expected: `EOF while parsing ${container === "{" ? "an object" : "a list"}` };
        return { at: i, expected: `expected \`,\` or \`${closer}\`` };
      }
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
