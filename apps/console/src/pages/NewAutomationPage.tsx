/** Creating an automation (admins): its sector (an existing one, or a new one made on the way), parameters and limit. */
import { useState, type FormEvent } from "react";
import { ApiError, call, hub } from "../api";
import { Link, navigate } from "../router";
import { useUser } from "../session";
import { ErrorMessage, Field, Loading, useResource, useSubmission } from "../ui";

const NEW_SECTOR = "__new__";

/** "Invoice export (EU)" → "invoice-export-eu", the slug pattern the hub accepts. */
function slugOf(name: string): string {
  return name
    .toLowerCase()
    .normalize("NFKD")
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 100);
}

interface ParameterRow {
  key: number;
  name: string;
  description: string;
}

export function NewAutomationPage() {
  const user = useUser();
  const sectors = useResource(() => call(hub.GET("/sectors", { params: { query: { limit: 1000 } } })), []);
  const [name, setName] = useState("");
  const [slug, setSlug] = useState("");
  const [slugEdited, setSlugEdited] = useState(false);
  const [sectorId, setSectorId] = useState("");
  const [sectorName, setSectorName] = useState("");
  const [sectorColor, setSectorColor] = useState("#1d4ed8");
  const [description, setDescription] = useState("");
  const [maxConcurrentJobs, setMaxConcurrentJobs] = useState("1");
  const [parameters, setParameters] = useState<ParameterRow[]>([]);
  const [nextKey, setNextKey] = useState(1);
  const { busy, error, issues, run } = useSubmission();

  if (!user.isAdmin) {
    return (
      <>
        <h1>New automation</h1>
        <p>Only admins create automations.</p>
      </>
    );
  }

  const chosenSector = sectorId || (sectors.data && sectors.data.length > 0 ? sectors.data[0]!.id : NEW_SECTOR);
  const updateParameter = (key: number, change: Partial<ParameterRow>) =>
    setParameters((rows) => rows.map((row) => (row.key === key ? { ...row, ...change } : row)));

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    await run(async () => {
      let sector = chosenSector;
      if (sector === NEW_SECTOR) {
        try {
          sector = (await call(hub.POST("/sectors", { body: { name: sectorName, color: sectorColor.toUpperCase() } }))).id;
        } catch (failure) {
          // The new sector's fields are "sector.name" and "sector.color" in this form.
          if (failure instanceof ApiError) throw new ApiError(failure.message, failure.status, failure.issues.map((issue) => ({ ...issue, field: `sector.${issue.field}` })));
          throw failure;
        }
        setSectorId(sector);
        sectors.reload();
      }
      const created = await call(
        hub.POST("/automations", {
          body: {
            name,
            slug,
            sector_id: sector,
            description,
            max_concurrent_jobs: Number(maxConcurrentJobs),
            parameters: parameters.map(({ name: parameterName, description: parameterDescription }) => ({ name: parameterName, description: parameterDescription })),
          },
        }),
      );
      navigate(`/automations/${created.id}`);
    });
  };

  return (
    <>
      <p className="crumbs">
        <Link to="/automations">Automations</Link> /
      </p>
      <h1>New automation</h1>
      {sectors.loading && !sectors.data ? (
        <Loading what="sectors" />
      ) : (
        <form className="form" onSubmit={(event) => void submit(event)} noValidate>
          <Field label="Name" error={issues.name}>
            {(props) => (
              <input
                {...props}
                required
                maxLength={200}
                value={name}
                onChange={(event) => {
                  setName(event.target.value);
                  if (!slugEdited) setSlug(slugOf(event.target.value));
                }}
              />
            )}
          </Field>
          <Field label="Slug" hint="Lower-case letters, digits and dashes; it cannot change later." error={issues.slug}>
            {(props) => (
              <input
                {...props}
                required
                maxLength={100}
                pattern="[a-z0-9]+(-[a-z0-9]+)*"
                value={slug}
                onChange={(event) => {
                  setSlug(event.target.value);
                  setSlugEdited(true);
                }}
              />
            )}
          </Field>
          <Field label="Sector" error={issues.sector_id}>
            {(props) => (
              <select {...props} value={chosenSector} onChange={(event) => setSectorId(event.target.value)}>
                {(sectors.data ?? []).map((sector) => (
                  <option key={sector.id} value={sector.id}>
                    {sector.name}
                  </option>
                ))}
                <option value={NEW_SECTOR}>New sector…</option>
              </select>
            )}
          </Field>
          {chosenSector === NEW_SECTOR && (
            <fieldset>
              <legend>New sector</legend>
              <Field label="Sector name" error={issues["sector.name"]}>
                {(props) => <input {...props} required maxLength={100} value={sectorName} onChange={(event) => setSectorName(event.target.value)} />}
              </Field>
              <Field label="Sector colour" error={issues["sector.color"]}>
                {(props) => <input {...props} type="color" value={sectorColor} onChange={(event) => setSectorColor(event.target.value)} />}
              </Field>
            </fieldset>
          )}
          <Field label="Description" error={issues.description}>
            {(props) => <textarea {...props} rows={2} value={description} onChange={(event) => setDescription(event.target.value)} />}
          </Field>
          <Field label="Jobs running at once" hint="At most this many of its jobs run at the same time (1–1000)." error={issues.max_concurrent_jobs}>
            {(props) => <input {...props} type="number" min={1} max={1000} required value={maxConcurrentJobs} onChange={(event) => setMaxConcurrentJobs(event.target.value)} />}
          </Field>
          <fieldset>
            <legend>Parameters</legend>
            <p className="hint">Every job of the automation gives a text value for each parameter; the new-job form asks for them.</p>
            {parameters.length === 0 && <p className="muted">No parameters: jobs carry an empty context.</p>}
            {parameters.map((row, index) => (
              <div className="parameter-row" key={row.key}>
                <Field label={`Parameter ${index + 1} name`} error={issues[`parameters.${index}.name`]}>
                  {(props) => <input {...props} required maxLength={100} value={row.name} onChange={(event) => updateParameter(row.key, { name: event.target.value })} />}
                </Field>
                <Field label={`Parameter ${index + 1} description`}>
                  {(props) => <input {...props} value={row.description} onChange={(event) => updateParameter(row.key, { description: event.target.value })} />}
                </Field>
                <button type="button" onClick={() => setParameters((rows) => rows.filter((candidate) => candidate.key !== row.key))}>
                  Remove<span className="visually-hidden"> parameter {index + 1}</span>
                </button>
              </div>
            ))}
            <button
              type="button"
              onClick={() => {
                setParameters((rows) => [...rows, { key: nextKey, name: "", description: "" }]);
                setNextKey(nextKey + 1);
              }}
            >
              Add parameter
            </button>
          </fieldset>
          {error && <ErrorMessage error={error} />}
          <div className="actions">
            <button type="submit" className="primary" disabled={busy}>
              {busy ? "Creating…" : "Create automation"}
            </button>
            <Link to="/automations">Cancel</Link>
          </div>
        </form>
      )}
    </>
  );
}
