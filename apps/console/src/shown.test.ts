import { describe, expect, it } from "vitest";
import { shown, shownJson } from "./shown";

describe("input shown as it is", () => {
  it("when a log line holds a right-to-left override, then the override is shown as a marker and the text keeps its order", () => {
    expect(shown("invoice \u202Egnp.exe")).toBe("invoice ⟨U+202E⟩gnp.exe");
  });

  it("when a name holds zero-width, isolate, mark or byte-order characters, then each is a visible marker", () => {
    expect(shown("ad\u200Bmin")).toBe("ad⟨U+200B⟩min");
    expect(shown("\u2066a\u2069 \u200Fb \uFEFFc \u061Cd")).toBe("⟨U+2066⟩a⟨U+2069⟩ ⟨U+200F⟩b ⟨U+FEFF⟩c ⟨U+061C⟩d");
    expect(shown("bell\u0007 esc\u001b del\u007f")).toBe("bell⟨U+0007⟩ esc⟨U+001B⟩ del⟨U+007F⟩");
  });

  it("when text is ordinary (accents, emoji, other scripts, tabs and new lines), then it is unchanged", () => {
    const ordinary = "Ünïcödé ✓ 🚀 עברית العربية 日本語\ttab\nnew line";
    expect(shown(ordinary)).toBe(ordinary);
  });

  it("when a JSON context carries an override in a value or a key, then the compact JSON shows markers", () => {
    expect(shownJson({ ["na\u202Eme"]: "x\u2067y" })).toBe('{"na⟨U+202E⟩me":"x⟨U+2067⟩y"}');
  });
});
