/**
 * Text that came from input (names, contexts, results, errors, log lines), made safe to show
 * (CONTRACT §6.21): a bidirectional override or an invisible control character is shown as a
 * visible marker, `⟨U+202E⟩`, never applied. Unmarked, U+202E makes a log line read backwards, and
 * a zero-width or direction character makes two different names look the same. The one helper the
 * console shows input through.
 */

/**
 * Bidirectional controls (embeddings, overrides, isolates, marks), zero-width and invisible
 * formatting characters, the byte-order mark, soft hyphen and the C0/C1 control characters other
 * than tab and line feed (kept: log lines and JSON contexts use them).
 */
const HIDDEN_CHARACTERS =
  // eslint-disable-next-line no-control-regex, no-misleading-character-class -- these characters, each on its own, are what it finds
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u00ad\u061c\u115f\u1160\u17b4\u17b5\u180e\u200b-\u200f\u202a-\u202e\u2060-\u206f\u3164\ufeff\ufff9-\ufffb]/gu;

/** `text` with every hidden or direction-changing character replaced by `⟨U+XXXX⟩`. */
export function shown(text: string): string {
  return text.replace(HIDDEN_CHARACTERS, (character) => `⟨U+${character.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}⟩`);
}

/** A JSON value (a context, a result, a payload) as compact text, shown through {@link shown}. */
export function shownJson(value: unknown): string {
  // JSON.stringify escapes C0 controls itself; bidi and zero-width characters pass through it as they are.
  return shown(JSON.stringify(value) ?? "");
}
