/**
 * Client-side routes under /console (the API answers index.html for every one of them): a few
 * patterns, the History API, and links that are real `<a href>`s (open in a new tab, keyboard and
 * screen readers work as on any page).
 */
import { useEffect, useState, type AnchorHTMLAttributes, type MouseEvent } from "react";

export const BASE = "/console";

export type Route =
  | { page: "automations" }
  | { page: "new-automation" }
  | { page: "automation"; automationId: string }
  | { page: "edit-automation"; automationId: string }
  | { page: "new-job"; automationId: string }
  | { page: "jobs" }
  | { page: "approvals" }
  | { page: "job"; jobId: string }
  | { page: "webhooks" }
  | { page: "webhook"; webhookId: string }
  | { page: "api-keys" }
  | { page: "sectors" }
  | { page: "events" }
  | { page: "maintenance" }
  | { page: "users" }
  | { page: "account" }
  | { page: "alerts" }
  | { page: "not-found" };

const PATTERNS: [RegExp, (match: string[]) => Route][] = [
  [/^\/?$/, () => ({ page: "automations" })],
  [/^\/automations\/?$/, () => ({ page: "automations" })],
  [/^\/automations\/new\/?$/, () => ({ page: "new-automation" })],
  [/^\/automations\/([^/]+)\/?$/, ([, id]) => ({ page: "automation", automationId: id! })],
  [/^\/automations\/([^/]+)\/new-job\/?$/, ([, id]) => ({ page: "new-job", automationId: id! })],
  [/^\/automations\/([^/]+)\/edit\/?$/, ([, id]) => ({ page: "edit-automation", automationId: id! })],
  [/^\/jobs\/?$/, () => ({ page: "jobs" })],
  [/^\/approvals\/?$/, () => ({ page: "approvals" })],
  [/^\/jobs\/([^/]+)\/?$/, ([, id]) => ({ page: "job", jobId: id! })],
  [/^\/webhooks\/?$/, () => ({ page: "webhooks" })],
  [/^\/webhooks\/([^/]+)\/?$/, ([, id]) => ({ page: "webhook", webhookId: id! })],
  [/^\/api-keys\/?$/, () => ({ page: "api-keys" })],
  [/^\/sectors\/?$/, () => ({ page: "sectors" })],
  [/^\/events\/?$/, () => ({ page: "events" })],
  [/^\/maintenance\/?$/, () => ({ page: "maintenance" })],
  [/^\/users\/?$/, () => ({ page: "users" })],
  [/^\/account\/?$/, () => ({ page: "account" })],
  [/^\/alerts\/?$/, () => ({ page: "alerts" })],
];

export function parseRoute(pathname: string): Route {
  const path = pathname.startsWith(BASE) ? pathname.slice(BASE.length) : pathname;
  for (const [pattern, build] of PATTERNS) {
    const match = pattern.exec(path);
    if (match) return build(match.map((part) => decodeURIComponent(part)));
  }
  return { page: "not-found" };
}

/** `/automations/…` → `/console/automations/…`. */
export function href(path: string): string {
  return `${BASE}${path}`;
}

const NAVIGATED = "hub:navigated";

export function navigate(path: string, options: { replace?: boolean } = {}): void {
  if (options.replace) window.history.replaceState(null, "", href(path));
  else window.history.pushState(null, "", href(path));
  window.dispatchEvent(new Event(NAVIGATED));
}

/** The current location (pathname and query), updated on links, back and forward. */
export function useLocation(): { pathname: string; search: string } {
  const read = () => ({ pathname: window.location.pathname, search: window.location.search });
  const [location, setLocation] = useState(read);
  useEffect(() => {
    const update = () => setLocation(read());
    window.addEventListener("popstate", update);
    window.addEventListener(NAVIGATED, update);
    return () => {
      window.removeEventListener("popstate", update);
      window.removeEventListener(NAVIGATED, update);
    };
  }, []);
  return location;
}

/** A link inside the console: a plain left click navigates without reloading the page. */
export function Link({ to, ...rest }: { to: string } & Omit<AnchorHTMLAttributes<HTMLAnchorElement>, "href">) {
  const onClick = (event: MouseEvent<HTMLAnchorElement>) => {
    rest.onClick?.(event);
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(to);
  };
  return <a {...rest} href={href(to)} onClick={onClick} />;
}
