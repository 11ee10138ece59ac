/**
 * When schedules fire (CONTRACT §6.9): the cron syntax the hub accepts, the time zones it accepts,
 * and the fire times of an expression in a time zone.
 *
 * The syntax is checked here, field by field, before anything reaches the library: five Vixie
 * fields (numbers, month and day names, `*`, ranges, lists, steps; 0 and 7 = Sunday), the seven
 * `@` nicknames, and — only where the caller allows it — a leading seconds field. Everything else
 * (croner's own extensions `L`, `W`, `#`, `?`, years, `@every`…) is refused, so a schedule means
 * the same thing to every cron-literate reader.
 *
 * The fire times come from croner (https://github.com/Hexagon/croner, MIT, no dependencies,
 * `engines: node >= 18`): it computes in any IANA time zone through `Intl`, and its DST rule is
 * the contract's — a fixed time of day (single minute and hour, `30 2 * * *`) that does not exist
 * fires when the clocks spring forward, one that occurs twice fires once, at its first
 * occurrence; steps, ranges and lists in minute or hour follow elapsed time (`0 * * * *` fires
 * every 60 minutes across a change). `cron.test.ts` pins that behaviour across the 2026 changes in
 * Europe/Berlin and America/New_York. Day-of-month and day-of-week both restricted: either
 * matches (Vixie's rule); croner counts a stepped star (`*` then `/2`) as restricted too, where Vixie
 * would read it as unrestricted.
 */
import { Cron } from "croner";

/** The nicknames the contract lists, as the five fields they stand for. */
export const CRON_NICKNAMES: Readonly<Record<string, string>> = {
  "@yearly": "0 0 1 1 *",
  "@annually": "0 0 1 1 *",
  "@monthly": "0 0 1 * *",
  "@weekly": "0 0 * * 0",
  "@daily": "0 0 * * *",
  "@midnight": "0 0 * * *",
  "@hourly": "0 * * * *",
};

interface CronField {
  name: string;
  min: number;
  max: number;
  /** Largest step: the number of distinct values the field has. */
  maxStep: number;
  /** Three-letter names, `names[i]` standing for `min + i` (month, day of week). */
  names?: readonly string[];
}

const SECOND: CronField = { name: "second", min: 0, max: 59, maxStep: 60 };
const FIVE_FIELDS: readonly CronField[] = [
  { name: "minute", min: 0, max: 59, maxStep: 60 },
  { name: "hour", min: 0, max: 23, maxStep: 24 },
  { name: "day-of-month", min: 1, max: 31, maxStep: 31 },
  { name: "month", min: 1, max: 12, maxStep: 12, names: ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"] },
  // 0 and 7 are both Sunday.
  { name: "day-of-week", min: 0, max: 7, maxStep: 7, names: ["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"] },
];

/** An expression the hub accepts, in the form handed to croner (names as numbers, nicknames expanded). */
export interface CronExpression {
  /** Space-separated fields: five, or six with a leading seconds field. */
  pattern: string;
  hasSeconds: boolean;
}

export type CronParseResult = { ok: true; expression: CronExpression } | { ok: false; problem: string };

const ITEM = /^(?:(\*)|([0-9A-Za-z]+)(?:-([0-9A-Za-z]+))?)(?:\/([0-9]+))?$/;

/** One value of a field: a number, or (month, day of week) a three-letter name, in any case. */
function fieldValue(field: CronField, text: string): number | string {
  let value: number;
  if (/^[0-9]+$/.test(text)) value = Number(text);
  else {
    const index = field.names?.indexOf(text.toUpperCase()) ?? -1;
    if (index === -1) return field.names ? `"${text}" is not a number or a ${field.name === "month" ? "month" : "day"} name` : `"${text}" is not a number`;
    value = field.min + index;
  }
  if (value < field.min || value > field.max) return `${value} is out of range ${field.min}–${field.max}`;
  return value;
}

/** Checks one field; returns it with names replaced by numbers, or what is wrong with it. */
function checkField(field: CronField, text: string): { ok: true; normalized: string } | { ok: false; problem: string } {
  const items: string[] = [];
  for (const item of text.split(",")) {
    const match = ITEM.exec(item);
    if (!match) return { ok: false, problem: `${field.name}: "${item}" is not a value, a range, * or a step of one` };
    const [, star, from, to, step] = match;
    if (step !== undefined) {
      const size = Number(step);
      if (size < 1 || size > field.maxStep) return { ok: false, problem: `${field.name}: step ${step} must be between 1 and ${field.maxStep}` };
      // Vixie steps only a range or *: "5/10" is refused, as it is there.
      if (star === undefined && to === undefined) return { ok: false, problem: `${field.name}: a step needs a range or * before it ("${item}")` };
    }
    if (star !== undefined) {
      items.push(item);
      continue;
    }
    const low = fieldValue(field, from!);
    if (typeof low === "string") return { ok: false, problem: `${field.name}: ${low}` };
    let normalized = String(low);
    if (to !== undefined) {
      const high = fieldValue(field, to);
      if (typeof high === "string") return { ok: false, problem: `${field.name}: ${high}` };
      if (high < low) return { ok: false, problem: `${field.name}: range ${item} goes backwards` };
      normalized += `-${high}`;
    }
    items.push(step === undefined ? normalized : `${normalized}/${step}`);
  }
  return { ok: true, normalized: items.join(",") };
}

/**
 * Checks `text` against the syntax of CONTRACT §6.9. A six-field expression (a leading seconds
 * field) is accepted here; whether it is allowed is the caller's decision (HUB_SCHEDULES_ALLOW_SECONDS).
 */
export function parseCronExpression(text: string): CronParseResult {
  const trimmed = text.trim();
  if (trimmed.startsWith("@")) {
    const pattern = CRON_NICKNAMES[trimmed];
    if (pattern === undefined) return { ok: false, problem: `unknown nickname "${trimmed}": use one of ${Object.keys(CRON_NICKNAMES).join(", ")}` };
    return { ok: true, expression: { pattern, hasSeconds: false } };
  }
  const parts = trimmed === "" ? [] : trimmed.split(/\s+/);
  const fields = parts.length === 6 ? [SECOND, ...FIVE_FIELDS] : FIVE_FIELDS;
  if (parts.length !== 5 && parts.length !== 6) {
    return { ok: false, problem: `expected five fields (minute hour day-of-month month day-of-week) or a nickname such as @daily; got ${parts.length}` };
  }
  const normalized: string[] = [];
  for (const [index, field] of fields.entries()) {
    const checked = checkField(field, parts[index]!);
    if (!checked.ok) return checked;
    normalized.push(checked.normalized);
  }
  return { ok: true, expression: { pattern: normalized.join(" "), hasSeconds: parts.length === 6 } };
}

/**
 * What is wrong with `name` as a schedule's time zone, or undefined when it is one: any name
 * `Intl.DateTimeFormat` accepts (`UTC`, `Europe/Berlin`, `US/Eastern`). UTC offsets (`+01:00`)
 * are refused even where the runtime would take them: an offset has no DST, so it is never what a
 * schedule "at 06:00 Berlin time" means.
 */
export function timeZoneProblem(name: string): string | undefined {
  if (/^[+\-\u2212]/.test(name.trim())) return "a UTC offset is not a time zone: use an IANA name such as Europe/Berlin";
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: name });
    return undefined;
  } catch {
    return `unknown time zone "${name}": use an IANA name such as Europe/Berlin or UTC`;
  }
}

/** The fire times of a checked expression in a time zone. Cheap to keep, ~70 µs to build. */
export class CronTimetable {
  private readonly cron: Cron;

  /** `expression` from {@link parseCronExpression}; `timeZone` one {@link timeZoneProblem} accepts. */
  constructor(expression: CronExpression, timeZone: string) {
    this.cron = new Cron(expression.pattern, {
      timezone: timeZone,
      mode: expression.hasSeconds ? "6-part" : "5-part",
      // Vixie: day-of-month and day-of-week both restricted → either matches.
      domAndDow: false,
    });
  }

  /** The first fire time strictly after `instant` (whole seconds), or null when there is none. */
  nextAfter(instant: Date): Date | null {
    return this.cron.nextRun(instant);
  }

  /**
   * The latest fire time in [`notBefore`, `before`), as the forward sequence of {@link nextAfter}
   * has it; null when there is none. Steps back two fires and walks forward from there, so a long
   * gap (a dispatcher down for a day, a schedule firing every second) costs a few steps, not one
   * per fire missed.
   */
  latestBefore(before: Date, notBefore: Date): Date | null {
    const stepBack = this.cron.previousRuns(2, before)[1];
    let from = new Date(notBefore.getTime() - 1);
    if (stepBack && stepBack > from) from = stepBack;
    let latest: Date | null = null;
    for (let next = this.nextAfter(from); next && next < before; next = this.nextAfter(next)) latest = next;
    return latest;
  }
}

/** The timetable of a stored expression in a stored zone; null for one the hub cannot read (a row edited by hand). */
export function timetableFor(cron: string, timeZone: string): CronTimetable | null {
  const parsed = parseCronExpression(cron);
  if (!parsed.ok) return null;
  try {
    return new CronTimetable(parsed.expression, timeZone);
  } catch {
    return null;
  }
}
