/**
 * An api key's automation scope (CONTRACT §6.22), picked at creation: every automation its user
 * reaches, or 1–100 of them. The hub may hold thousands, so the picker shows those the search
 * matches (at most {@link SHOWN_MATCHES}) and keeps the chosen ones in view.
 */
import { useState } from "react";
import type { ApiKey, Automation } from "../../api";
import { shown } from "../../shown";
import { Field } from "../../ui";

/** The most automations a key's scope names (the hub refuses more). */
export const MAX_SCOPED_AUTOMATIONS = 100;
/** Matches of the search shown at once. */
const SHOWN_MATCHES = 20;

export function AutomationScopePicker({
  automations,
  chosen,
  onChange,
  error,
}: {
  /** What the user reaches; undefined while being read. */
  automations: readonly Automation[] | undefined;
  /** null: every automation the user reaches. */
  chosen: readonly string[] | null;
  onChange: (ids: string[] | null) => void;
  error: string | undefined;
}) {
  const [search, setSearch] = useState("");
  const every = chosen === null;
  const picked = chosen ?? [];
  const needle = search.trim().toLowerCase();
  const matches = (automations ?? [])
    .filter((automation) => !picked.includes(automation.id))
    .filter((automation) => needle === "" || automation.name.toLowerCase().includes(needle) || automation.slug.includes(needle))
    .slice(0, SHOWN_MATCHES);
  const byId = new Map((automations ?? []).map((automation) => [automation.id, automation]));
  const toggle = (id: string, on: boolean) => onChange(on ? [...picked, id] : picked.filter((other) => other !== id));

  return (
    <fieldset className="scope-picker">
      <legend>Automations the key reaches</legend>
      <label className="toggle">
        <input type="checkbox" checked={every} onChange={(event) => onChange(event.target.checked ? null : [])} /> Every automation you reach
      </label>
      {!every && (
        <>
          <p className="hint">
            Pick 1–{MAX_SCOPED_AUTOMATIONS}: the key reaches only these, their jobs, logs and events ({picked.length} picked).
          </p>
          {picked.length > 0 && (
            <div className="checkbox-grid" role="group" aria-label="Picked automations">
              {picked.map((id) => (
                <label key={id} className="toggle">
                  <input type="checkbox" checked onChange={() => toggle(id, false)} /> {shown(byId.get(id)?.name ?? id)}
                </label>
              ))}
            </div>
          )}
          <Field label="Find an automation" hint="By name or slug.">
            {(props) => <input {...props} type="search" value={search} spellCheck={false} onChange={(event) => setSearch(event.target.value)} />}
          </Field>
          {automations === undefined ? (
            <p className="muted">Reading the automations…</p>
          ) : matches.length === 0 ? (
            <p className="muted">No other automation matches.</p>
          ) : (
            <div className="checkbox-grid" role="group" aria-label="Automations found">
              {matches.map((automation) => (
                <label key={automation.id} className="toggle">
                  <input type="checkbox" checked={false} disabled={picked.length >= MAX_SCOPED_AUTOMATIONS} onChange={() => toggle(automation.id, true)} />{" "}
                  {shown(automation.name)}
                </label>
              ))}
            </div>
          )}
        </>
      )}
      {error && (
        <span className="inline-error" role="alert">
          {error}
        </span>
      )}
    </fieldset>
  );
}

/** The first problem the hub found with `automation_ids` (the list, or one of its ids). */
export function automationScopeIssue(issues: Record<string, string>): string | undefined {
  const key = Object.keys(issues).find((name) => name === "automation_ids" || name.startsWith("automation_ids."));
  return key === undefined ? undefined : issues[key];
}

/**
 * A key's scopes in a few words: fixed at creation, so shown, never edited. Automations are named
 * when `names` holds them (up to three, then a count).
 */
export function scopeOf(key: ApiKey, names?: ReadonlyMap<string, string>): string {
  const parts: string[] = [];
  if (key.automation_ids) {
    const named = key.automation_ids.map((id) => names?.get(id));
    if (named.every((name) => name !== undefined) && named.length <= 3) parts.push(named.map((name) => shown(name)).join(", "));
    else parts.push(key.automation_ids.length === 1 ? "1 automation" : `${key.automation_ids.length} automations`);
  }
  if (key.read_only) parts.push("read-only");
  if (key.role === "employee") parts.push("as employee");
  return parts.length === 0 ? "full" : parts.join(", ");
}
