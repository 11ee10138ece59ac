/**
 * The console's one clock: every time relative to now ("3 min ago", "in 5 s") reads from it, so
 * the same time reads the same on every page, and moves on its own.
 *
 * One timer for the whole console, running while something shows a relative time. It ticks at
 * each whole second of the browser's clock, and `now` is that whole second: two tabs (or two parts
 * of one page) that show the same time compute it from the same instant, so they agree but for
 * the few milliseconds after a tick. A component that shows a relative time in a long list uses
 * {@link useClockText} (or {@link Ago} / {@link Clocked}): it renders again only when its words
 * change, not on every tick.
 */
import { useSyncExternalStore, type ReactNode } from "react";
import { ago, duration } from "./format";

const listeners = new Set<() => void>();
let timer: ReturnType<typeof setTimeout> | undefined;
let now = wholeSecond();

function wholeSecond(): number {
  return Math.floor(Date.now() / 1000) * 1000;
}

function tickAtNextSecond(): void {
  // A few ms past the boundary, so that the whole second read is the new one.
  timer = setTimeout(
    () => {
      now = wholeSecond();
      for (const listener of [...listeners]) listener();
      tickAtNextSecond();
    },
    1000 - (Date.now() % 1000) + 5,
  );
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  if (timer === undefined) {
    now = wholeSecond();
    tickAtNextSecond();
  }
  return () => {
    listeners.delete(listener);
    if (listeners.size === 0 && timer !== undefined) {
      clearTimeout(timer);
      timer = undefined;
    }
  };
}

/** The clock's current second; while nothing listens (the first render), read afresh. */
function currentNow(): number {
  if (timer === undefined) now = wholeSecond();
  return now;
}

/** The console's now, renewed each second: the component renders again on every tick. */
export function useNow(): number {
  return useSyncExternalStore(subscribe, currentNow);
}

/** Words computed from the clock (`text(now)`): the component renders again only when they change. */
export function useClockText(text: (now: number) => string): string {
  return useSyncExternalStore(subscribe, () => text(currentNow()));
}

/** Text from the clock, for a cell of a long list. */
export function Clocked({ text }: { text: (now: number) => string }): ReactNode {
  return useClockText(text);
}

/** "3 min ago" ({@link ago}), live. */
export function Ago({ iso }: { iso: string | null | undefined }): ReactNode {
  return useClockText((at) => ago(iso, at));
}

/** How long since `iso`: "4 min" ({@link duration}), live. */
export function Since({ iso }: { iso: string }): ReactNode {
  return useClockText((at) => duration(at - Date.parse(iso)));
}
