import { describe, expect, it } from "vitest";
import { jsonErrorPosition, jsonSyntaxError } from "./json-error-position";

// Expected positions are what CPython 3.11's json.loads reports (JSONDecodeError.pos).
const PYTHON_POSITIONS: [string, number][] = [
  ['{"a": }', 6],
  ['{"a":1', 6],
  ['{"a" 1}', 5],
  ["nope", 0],
  ['{"a":1}x', 7],
  ["[1,]", 3],
  ['{"a":1,}', 7],
  ["{,}", 1],
  ['"abc', 0],
  ['"a\\qb"', 2],
  ['"\\uZZZZ"', 2],
  ['"\\u12"', 2],
  ['"a\u0001b"', 2],
  ["", 0],
  ["   ", 3],
  ["-", 0],
  ["1.", 1],
  ["01", 1],
  ['{"a":[1,2}', 9],
  ["[1 2]", 3],
  ["tru", 0],
  ['{"a":1}  ]', 9],
  ['"\\', 0],
  ['{"é":"ü", x}', 10],
  ["[", 1],
  ["{", 1],
  ['{"a"', 4],
  ['{"a":', 5],
  ['"😀" x', 4],
];

describe("jsonErrorPosition", () => {
  it.each(PYTHON_POSITIONS)("when the text is %j, then the error is at %i, as Python reports it", (text, position) => {
    expect(jsonErrorPosition(text)).toBe(position);
  });

  it.each(['{"a": [1, 2.5e-3, true, false, null, {"b": "\\u00e9\\n"}]}', "  []  ", '"x"', "-0.5E+2", "{}"])(
    "when the text %j is valid JSON, then there is no error position",
    (text) => {
      expect(jsonErrorPosition(text)).toBeUndefined();
    },
  );

  it("when the input nests a hundred thousand arrays, then it is scanned without overflowing the stack", () => {
    expect(jsonErrorPosition("[".repeat(100_000))).toBe(100_000);
  });
});

describe("jsonSyntaxError", () => {
  it.each([
    ['{"a": }', "Invalid JSON: expected value at line 1 column 7"],
    ['{"a" 1}', "Invalid JSON: expected `:` at line 1 column 6"],
    ['{"a":1 "b":2}', "Invalid JSON: expected `,` or `}` at line 1 column 8"],
    ["[1 2]", "Invalid JSON: expected `,` or `]` at line 1 column 4"],
    ["{,}", "Invalid JSON: key must be a string at line 1 column 2"],
    ['"abc', "Invalid JSON: EOF while parsing a string at line 1 column 1"],
    ['"a\\qb"', "Invalid JSON: invalid escape at line 1 column 3"],
    ["", "Invalid JSON: EOF while parsing a value at line 1 column 1"],
    ["[1,", "Invalid JSON: EOF while parsing a value at line 1 column 4"],
    ['{"a":1', "Invalid JSON: EOF while parsing an object at line 1 column 7"],
    ['{"a":1}x', "Invalid JSON: trailing characters at line 1 column 8"],
    ['{\n  "é": 1,\n  "b": }', "Invalid JSON: expected value at line 3 column 8"],
  ])("when %j is parsed, then the message says %j", (text, msg) => {
    expect(jsonSyntaxError(text)?.msg).toBe(msg);
  });

  it("when the text is valid JSON, then there is no error", () => {
    expect(jsonSyntaxError('{"a": [1, "x", null]}')).toBeUndefined();
  });
});
