/** Sectors, the groups automations belong to: the list, and for admins a new one. */
import { useState, type FormEvent } from "react";
import { call, hub } from "../api";
import { dateTime } from "../format";
import { useLiveEvents } from "../live";
import { useUser } from "../session";
import { Empty, ErrorMessage, Field, Loading, useCoalesced, useResource, useSubmission } from "../ui";
import { shown } from "../shown";

export function SectorsPage() {
  const user = useUser();
  const sectors = useResource(() => call(hub.GET("/sectors", { params: { query: { limit: 1000 } } })), []);
  const reload = useCoalesced(() => sectors.reload());
  useLiveEvents((event) => {
    if (event === "reset" || event.event_type.startsWith("sector.")) reload();
  });
  const [name, setName] = useState("");
  const [color, setColor] = useState("#1d4ed8");
  const [notice, setNotice] = useState<string>();
  const { busy, error, issues, run } = useSubmission();

  const create = async (event: FormEvent) => {
    event.preventDefault();
    setNotice(undefined);
    if (await run(() => call(hub.POST("/sectors", { body: { name, color: color.toUpperCase() } })))) {
      setNotice(`Sector ${name} created.`);
      setName("");
      reload();
    }
  };

  return (
    <>
      <h1>Sectors</h1>
      <p className="sub">Groups of automations, such as departments.</p>
      {user.isAdmin && (
        <section aria-labelledby="new-sector-title" className="panel">
          <h2 id="new-sector-title">New sector</h2>
          <form className="inline-form" onSubmit={(event) => void create(event)} noValidate>
            <Field label="Sector name" error={issues.name}>
              {(props) => <input {...props} required maxLength={100} value={name} onChange={(event) => setName(event.target.value)} />}
            </Field>
            <Field label="Sector colour" error={issues.color}>
              {(props) => <input {...props} type="color" value={color} onChange={(event) => setColor(event.target.value)} />}
            </Field>
            <button type="submit" className="primary" disabled={busy}>
              Create sector
            </button>
          </form>
          {notice && (
            <p role="status" className="notice">
              {notice}
            </p>
          )}
          {error && <ErrorMessage error={error} />}
        </section>
      )}
      {sectors.error && <ErrorMessage error={sectors.error} onRetry={sectors.reload} />}
      {sectors.data === undefined ? (
        !sectors.error && <Loading what="sectors" />
      ) : sectors.data.length === 0 ? (
        <Empty>No sectors yet.</Empty>
      ) : (
        <div className="table-wrap" tabIndex={0}>
          <table>
            <caption className="visually-hidden">Sectors</caption>
            <thead>
              <tr>
                <th scope="col">Sector</th>
                <th scope="col">Colour</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {sectors.data.map((sector) => (
                <tr key={sector.id} data-sector={sector.name}>
                  <th scope="row">
                    <span className="sector">
                      <span className="swatch" aria-hidden="true" style={{ backgroundColor: sector.color }} />
                      {shown(sector.name)}
                    </span>
                  </th>
                  <td data-label="Colour">
                    <code>{sector.color}</code>
                  </td>
                  <td data-label="Created">{dateTime(sector.created_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
