/**
 * The sectors a user reaches (CONTRACT §6.22): the checkboxes the new-user form and the sector
 * editor share, the words a user's sectors read in, and an admin's editor of an existing user's
 * sectors (PATCH /identity/users/{id} with `sector_ids`).
 */
import { useState, type FormEvent } from "react";
import { call, hub, type Sector, type User } from "../../api";
import { shown } from "../../shown";
import { ErrorMessage, useSubmission } from "../../ui";

/** Checkboxes of the hub's sectors; `chosen` are the ticked ids. */
export function SectorChoices({ sectors, chosen, onChange }: { sectors: readonly Sector[]; chosen: readonly string[]; onChange: (ids: string[]) => void }) {
  if (sectors.length === 0) return <p className="muted">No sectors yet.</p>;
  return (
    <div className="checkbox-grid">
      {sectors.map((sector) => (
        <label key={sector.id} className="toggle">
          <input
            type="checkbox"
            checked={chosen.includes(sector.id)}
            onChange={(event) => onChange(event.target.checked ? [...chosen, sector.id] : chosen.filter((id) => id !== sector.id))}
          />{" "}
          {shown(sector.name)}
        </label>
      ))}
    </div>
  );
}

/** The first problem the hub found with `sector_ids` (the list, or one of its ids). */
export function sectorIssue(issues: Record<string, string>): string | undefined {
  const key = Object.keys(issues).find((name) => name === "sector_ids" || name.startsWith("sector_ids."));
  return key === undefined ? undefined : issues[key];
}

/** A user's sectors in words: "every sector", or their names (an id the list does not hold stays an id). */
export function sectorsText(user: Pick<User, "role" | "sector_ids">, sectors: readonly Sector[] | undefined): string {
  if (user.sector_ids === null) return "every sector";
  const names = new Map((sectors ?? []).map((sector) => [sector.id, sector.name]));
  const listed = user.sector_ids.map((id) => shown(names.get(id) ?? id)).join(", ");
  // Stored for admins too, and applied only while the user is an employee.
  return user.role === "admin" ? `every sector (as an employee: ${listed})` : listed;
}

/** An admin's editor of another user's sectors: every sector, or the ticked ones. */
export function EditSectorsForm({ user, sectors, onDone }: { user: User; sectors: readonly Sector[]; onDone: (message: string | undefined) => void }) {
  const [everySector, setEverySector] = useState(user.sector_ids === null);
  const [sectorIds, setSectorIds] = useState<string[]>(user.sector_ids ?? []);
  const { busy, error, issues, run } = useSubmission();
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    await run(async () => {
      const sector_ids = everySector ? null : sectorIds;
      await call(hub.PATCH("/identity/users/{user_id}", { params: { path: { user_id: user.id } }, body: { sector_ids } }));
      onDone(`${user.email} now reaches ${sectorsText({ role: "employee", sector_ids }, sectors)}, from now on, open pages included.`);
    });
  };
  return (
    <form className="sector-editor" aria-label={`Sectors of ${user.email}`} onSubmit={(event) => void submit(event)}>
      <fieldset className="sector-picker">
        <legend>Sectors of {shown(user.email)}</legend>
        <label className="toggle">
          <input type="checkbox" checked={everySector} onChange={(event) => setEverySector(event.target.checked)} /> Every sector
        </label>
        {!everySector && <SectorChoices sectors={sectors} chosen={sectorIds} onChange={setSectorIds} />}
        {sectorIssue(issues) && (
          <span className="inline-error" role="alert">
            {sectorIssue(issues)}
          </span>
        )}
        {user.role === "admin" && <p className="hint">An admin reaches every sector; these apply if the user becomes an employee.</p>}
      </fieldset>
      <div className="actions">
        <button type="submit" className="primary" disabled={busy}>
          Save sectors
        </button>
        <button type="button" disabled={busy} onClick={() => onDone(undefined)}>
          Cancel
        </button>
      </div>
      {error && <ErrorMessage error={error} />}
    </form>
  );
}
