/**
 * Every setting of an automation, as one form for both "new automation" (POST /automations) and
 * "edit" (PUT /automations/{id}): name, slug (new only: it cannot change), sector (an existing
 * one, or a new one made on the way), description, jobs at once, retries (§6.4), limits per key
 * and the rate limit (§6.13), approvals (§6.17, ./approvals/ApprovalSettings.tsx), and parameters.
 */
import { useState, type FormEvent } from "react";
import { ApiError, call, hub, type Automation } from "../api";
import { Link } from "../router";
import { ErrorMessage, Field, Loading, useResource, useSubmission } from "../ui";
import { ApprovalSettings, approvalBody, useApprovalSettings } from "./approvals/ApprovalSettings";

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

/** A number field's value for the API: "" → undefined (the hub's default), else the number typed. */
const numberOrDefault = (text: string) => (text.trim() === "" ? undefined : Number(text));

export function AutomationForm({ existing, onSaved, cancelTo }: { existing?: Automation; onSaved: (id: string) => void; cancelTo: string }) {
  const sectors = useResource(() => call(hub.GET("/sectors", { params: { query: { limit: 1000 } } })), []);
  const [name, setName] = useState(existing?.name ?? "");
  const [slug, setSlug] = useState(existing?.slug ?? "");
  const [slugEdited, setSlugEdited] = useState(false);
  const [sectorId, setSectorId] = useState(existing?.sector.id ?? "");
  const [sectorName, setSectorName] = useState("");
  const [sectorColor, setSectorColor] = useState("#1d4ed8");
  const [description, setDescription] = useState(existing?.description ?? "");
  const [maxConcurrentJobs, setMaxConcurrentJobs] = useState(String(existing?.max_concurrent_jobs ?? 1));
  const [maxAttempts, setMaxAttempts] = useState(existing ? String(existing.max_attempts) : "");
  const [retryBackoff, setRetryBackoff] = useState(existing ? String(existing.retry_backoff_seconds) : "");
  const [timeout, setTimeoutSeconds] = useState(existing?.timeout_seconds == null ? "" : String(existing.timeout_seconds));
  const [concurrencyKey, setConcurrencyKey] = useState(existing?.concurrency_key ?? "");
  const [perKey, setPerKey] = useState(existing?.max_concurrent_per_key == null ? "1" : String(existing.max_concurrent_per_key));
  const [rateLimited, setRateLimited] = useState(existing?.rate_limit != null);
  const [rateCount, setRateCount] = useState(String(existing?.rate_limit?.count ?? 60));
  const [ratePeriod, setRatePeriod] = useState(String(existing?.rate_limit?.period_seconds ?? 60));
  const [ratePerKey, setRatePerKey] = useState(existing?.rate_limit?.per_key ?? false);
  const [parameters, setParameters] = useState<ParameterRow[]>(() =>
    (existing?.parameters ?? []).map((parameter, index) => ({ key: index + 1, name: parameter.name, description: parameter.description })),
  );
  const [nextKey, setNextKey] = useState(parameters.length + 1);
  const [approval, setApproval] = useApprovalSettings(existing);
  const { busy, error, issues, run } = useSubmission();

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
          if (failure instanceof ApiError)
            throw new ApiError(
              failure.message,
              failure.status,
              failure.issues.map((issue) => ({ ...issue, field: `sector.${issue.field}` })),
            );
          throw failure;
        }
        setSectorId(sector);
        sectors.reload();
      }
      const settings = {
        name,
        sector_id: sector,
        description,
        max_concurrent_jobs: Number(maxConcurrentJobs),
        parameters: parameters.map(({ name: parameterName, description: parameterDescription }) => ({
          name: parameterName,
          description: parameterDescription,
        })),
        ...(numberOrDefault(maxAttempts) === undefined ? {} : { max_attempts: numberOrDefault(maxAttempts) }),
        ...(numberOrDefault(retryBackoff) === undefined ? {} : { retry_backoff_seconds: numberOrDefault(retryBackoff) }),
        // Empty means no timeout: sent as null, so an edit can remove one.
        timeout_seconds: numberOrDefault(timeout) ?? null,
        concurrency_key: concurrencyKey || null,
        max_concurrent_per_key: concurrencyKey ? Number(perKey) : null,
        rate_limit: rateLimited ? { count: Number(rateCount), period_seconds: Number(ratePeriod), per_key: Boolean(concurrencyKey) && ratePerKey } : null,
        ...approvalBody(approval),
      };
      if (existing) {
        await call(hub.PUT("/automations/{automation_id}", { params: { path: { automation_id: existing.id } }, body: settings }));
        onSaved(existing.id);
      } else {
        onSaved((await call(hub.POST("/automations", { body: { ...settings, slug } }))).id);
      }
    });
  };

  if (sectors.loading && !sectors.data) return <Loading what="sectors" />;
  return (
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
              if (!existing && !slugEdited) setSlug(slugOf(event.target.value));
            }}
          />
        )}
      </Field>
      {existing ? (
        <p className="hint">
          Slug <code>{existing.slug}</code> (it cannot change).
        </p>
      ) : (
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
      )}
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
        {(props) => <textarea {...props} rows={2} maxLength={10_000} value={description} onChange={(event) => setDescription(event.target.value)} />}
      </Field>
      <fieldset>
        <legend>Running and retries</legend>
        <Field label="Jobs running at once" hint="At most this many of its jobs run at the same time (1–1000)." error={issues.max_concurrent_jobs}>
          {(props) => (
            <input
              {...props}
              type="number"
              min={1}
              max={1000}
              required
              value={maxConcurrentJobs}
              onChange={(event) => setMaxConcurrentJobs(event.target.value)}
            />
          )}
        </Field>
        <Field
          label="Attempts per job"
          hint={
            existing ? "1–100: a job that fails retryably runs again until it has had this many." : "1–100; empty: the hub's default (HUB_JOB_MAX_ATTEMPTS)."
          }
          error={issues.max_attempts}
        >
          {(props) => <input {...props} type="number" min={1} max={100} value={maxAttempts} onChange={(event) => setMaxAttempts(event.target.value)} />}
        </Field>
        <Field
          label="Retry back-off (seconds)"
          hint={`0–3600, doubling per attempt (±20 %, at most 1 h); empty: ${existing ? "as it is" : "10"}.`}
          error={issues.retry_backoff_seconds}
        >
          {(props) => <input {...props} type="number" min={0} max={3600} value={retryBackoff} onChange={(event) => setRetryBackoff(event.target.value)} />}
        </Field>
        <Field
          label="Timeout (seconds)"
          hint="1–86400: a job running longer fails with “timeout” (retryably); empty: no timeout."
          error={issues.timeout_seconds}
        >
          {(props) => <input {...props} type="number" min={1} max={86_400} value={timeout} onChange={(event) => setTimeoutSeconds(event.target.value)} />}
        </Field>
      </fieldset>
      <fieldset>
        <legend>Limits per key and rate</legend>
        <Field
          label="Concurrency key"
          hint="A parameter whose value groups jobs (e.g. customer): each value gets its own limit and a fair share."
          error={issues.concurrency_key}
        >
          {(props) => (
            <select {...props} value={concurrencyKey} onChange={(event) => setConcurrencyKey(event.target.value)}>
              <option value="">No key</option>
              {[...new Set([...parameters.map((row) => row.name.trim()).filter(Boolean), ...(concurrencyKey ? [concurrencyKey] : [])])].map((name) => (
                <option key={name} value={name}>
                  {name}
                </option>
              ))}
            </select>
          )}
        </Field>
        {concurrencyKey && (
          <Field label="Jobs running at once per key value" hint="1–1000." error={issues.max_concurrent_per_key}>
            {(props) => <input {...props} type="number" min={1} max={1000} required value={perKey} onChange={(event) => setPerKey(event.target.value)} />}
          </Field>
        )}
        <label className="toggle">
          <input type="checkbox" checked={rateLimited} onChange={(event) => setRateLimited(event.target.checked)} /> Limit how often jobs start
        </label>
        {rateLimited && (
          <div className="inline-form">
            <Field label="Starts" hint="1–100000." error={issues["rate_limit.count"]}>
              {(props) => (
                <input {...props} type="number" min={1} max={100_000} required value={rateCount} onChange={(event) => setRateCount(event.target.value)} />
              )}
            </Field>
            <Field label="Per seconds" hint="The window, 1–86400." error={issues["rate_limit.period_seconds"]}>
              {(props) => (
                <input {...props} type="number" min={1} max={86_400} required value={ratePeriod} onChange={(event) => setRatePeriod(event.target.value)} />
              )}
            </Field>
            {concurrencyKey && (
              <label className="toggle">
                <input type="checkbox" checked={ratePerKey} onChange={(event) => setRatePerKey(event.target.checked)} /> For each key value
              </label>
            )}
          </div>
        )}
      </fieldset>
      <ApprovalSettings state={approval} onChange={setApproval} issues={issues} />
      <fieldset>
        <legend>Parameters</legend>
        <p className="hint">
          Every job of the automation gives a text value for each parameter; the new-job form asks for them.
          {existing && " Changing them does not touch existing jobs; a schedule whose context no longer fits skips its fires."}
        </p>
        {parameters.length === 0 && <p className="muted">No parameters: jobs carry an empty context.</p>}
        {issues.parameters && <span className="inline-error">{issues.parameters}</span>}
        {parameters.map((row, index) => (
          <div className="parameter-row" key={row.key}>
            <Field label={`Parameter ${index + 1} name`} error={issues[`parameters.${index}.name`]}>
              {(props) => (
                <input {...props} required maxLength={100} value={row.name} onChange={(event) => updateParameter(row.key, { name: event.target.value })} />
              )}
            </Field>
            <Field label={`Parameter ${index + 1} description`} error={issues[`parameters.${index}.description`]}>
              {(props) => (
                <input
                  {...props}
                  maxLength={1000}
                  value={row.description}
                  onChange={(event) => updateParameter(row.key, { description: event.target.value })}
                />
              )}
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
          {existing ? (busy ? "Saving…" : "Save changes") : busy ? "Creating…" : "Create automation"}
        </button>
        <Link to={cancelTo}>{existing ? "Discard changes" : "Cancel"}</Link>
      </div>
    </form>
  );
}
