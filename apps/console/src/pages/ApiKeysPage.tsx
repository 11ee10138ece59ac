/**
 * Api keys for programs: one's own (create, the key shown once; revoke), and for admins a search
 * of every user's keys by prefix, to find the owner of a leaked key and revoke it.
 */
import { useState, type FormEvent } from "react";
import { call, hub, nextCursor, type ApiKey } from "../api";
import { ago, dateTime } from "../format";
import { useLiveEvents } from "../live";
import { useUser } from "../session";
import { Badge, ConfirmButton, Empty, ErrorMessage, Field, Loading, SecretOnce, useCoalesced, useResource, useSubmission } from "../ui";
import { useNow } from "../clock";
import { listAllAutomations } from "./AutomationsPage";
import { listAllUsers } from "./UsersPage";
import { AutomationScopePicker, automationScopeIssue, scopeOf } from "./keys/AutomationScope";
import { shown } from "../shown";

/** The caller's keys, or (admins) every key whose prefix starts as given: every page. */
async function listKeys(prefix: string | undefined): Promise<ApiKey[]> {
  const keys: ApiKey[] = [];
  let cursor: string | undefined;
  do {
    const request = hub.GET("/identity/api-keys", {
      params: { query: { limit: 1000, ...(prefix ? { all: true, prefix } : {}), ...(cursor ? { cursor } : {}) } },
    });
    keys.push(...(await call(request)));
    cursor = nextCursor((await request).response);
  } while (cursor);
  return keys;
}

export function ApiKeysPage() {
  const user = useUser();
  const now = useNow();
  const mine = useResource(() => listKeys(undefined), []);
  const reload = useCoalesced(() => mine.reload());
  useLiveEvents((event) => {
    if (event === "reset" || event.event_type.startsWith("api_key.")) reload();
  });
  const [name, setName] = useState("");
  const [days, setDays] = useState("90");
  const [readOnly, setReadOnly] = useState(false);
  const [asEmployee, setAsEmployee] = useState(false);
  // Every automation the user reaches (null), or the ones the key is scoped to.
  const [automationIds, setAutomationIds] = useState<string[] | null>(null);
  const automations = useResource(() => listAllAutomations(), []);
  const automationNames = new Map((automations.data ?? []).map((automation) => [automation.id, automation.name]));
  const [created, setCreated] = useState<string>();
  const { busy, error, issues, run } = useSubmission();

  const create = async (event: FormEvent) => {
    event.preventDefault();
    const done = await run(async () => {
      const answer = await call(
        hub.POST("/identity/api-keys", {
          body: { name, expires_in_days: Number(days), automation_ids: automationIds, read_only: readOnly, role: asEmployee ? "employee" : null },
        }),
      );
      setCreated(answer.key);
    });
    if (done) {
      setName("");
      setAutomationIds(null);
      reload();
    }
  };

  return (
    <>
      <h1>Api keys</h1>
      <p className="sub">
        A program sends a key as <code>Authorization: Bearer hub_…</code> and acts as you, with your role and sectors, narrowed by the scopes given to it below.
      </p>
      {created && (
        <SecretOnce
          title="Your new api key"
          label="Api key"
          secret={created}
          warning="Copy it now into the program's secret store. The hub keeps only a digest: it cannot show this key again."
          onDone={() => setCreated(undefined)}
        />
      )}
      <section aria-labelledby="new-key-title" className="panel">
        <h2 id="new-key-title">New key</h2>
        <form className="inline-form" onSubmit={(event) => void create(event)} noValidate>
          <Field label="Key name" hint="What uses it, e.g. nightly-report (1–100 characters)." error={issues.name}>
            {(props) => <input {...props} required maxLength={100} value={name} onChange={(event) => setName(event.target.value)} />}
          </Field>
          <Field label="Expires in days" hint="1–365." error={issues.expires_in_days}>
            {(props) => <input {...props} type="number" min={1} max={365} required value={days} onChange={(event) => setDays(event.target.value)} />}
          </Field>
          <label className="toggle">
            <input type="checkbox" checked={readOnly} onChange={(event) => setReadOnly(event.target.checked)} /> Read-only (only reads; fixed for the key's
            life)
          </label>
          {user.isAdmin && (
            <label className="toggle">
              <input type="checkbox" checked={asEmployee} onChange={(event) => setAsEmployee(event.target.checked)} /> Acts as an employee (with your sectors)
            </label>
          )}
          <AutomationScopePicker automations={automations.data} chosen={automationIds} onChange={setAutomationIds} error={automationScopeIssue(issues)} />
          <button type="submit" className="primary" disabled={busy}>
            Create key
          </button>
        </form>
        {error && <ErrorMessage error={error} />}
      </section>
      <section aria-labelledby="my-keys-title">
        <h2 id="my-keys-title">Your keys</h2>
        {mine.error && <ErrorMessage error={mine.error} onRetry={mine.reload} />}
        {mine.data === undefined ? (
          !mine.error && <Loading what="your keys" />
        ) : (
          <KeyTable keys={mine.data} now={now} names={automationNames} onRevoked={reload} />
        )}
      </section>
      {user.isAdmin && <PrefixSearch now={now} names={automationNames} />}
    </>
  );
}

function PrefixSearch({ now, names }: { now: number; names: ReadonlyMap<string, string> }) {
  const [prefix, setPrefix] = useState("");
  const [searched, setSearched] = useState<string>();
  const found = useResource(async () => (searched ? listKeys(searched) : undefined), [searched]);
  const users = useResource(() => listAllUsers(true), []);
  const emails = new Map((users.data ?? []).map((candidate) => [candidate.id, candidate.email]));
  return (
    <section aria-labelledby="search-keys-title">
      <h2 id="search-keys-title">Find a key by prefix</h2>
      <p className="hint">A leaked key starts with hub_ and then its prefix: paste it (or its first characters) to find whose it is.</p>
      <form
        className="inline-form"
        onSubmit={(event) => {
          event.preventDefault();
          setSearched(prefix.trim().replace(/^hub_/, "").slice(0, 8));
        }}
      >
        <Field label="Key prefix">
          {(props) => <input {...props} required spellCheck={false} value={prefix} onChange={(event) => setPrefix(event.target.value)} />}
        </Field>
        <button type="submit">Search keys</button>
      </form>
      {found.error && <ErrorMessage error={found.error} />}
      {searched && found.data && <KeyTable keys={found.data} now={now} owners={emails} names={names} onRevoked={found.reload} />}
    </section>
  );
}

function KeyTable({
  keys,
  now,
  owners,
  names,
  onRevoked,
}: {
  keys: ApiKey[];
  now: number;
  owners?: Map<string, string>;
  names: ReadonlyMap<string, string>;
  onRevoked: () => void;
}) {
  if (keys.length === 0) return <Empty>No keys.</Empty>;
  return (
    <div className="table-wrap" tabIndex={0}>
      <table>
        <caption className="visually-hidden">Api keys, newest first</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Prefix</th>
            {owners && <th scope="col">User</th>}
            <th scope="col">Scope</th>
            <th scope="col">Expires</th>
            <th scope="col">Last used</th>
            <th scope="col">Action</th>
          </tr>
        </thead>
        <tbody>
          {keys.map((key) => {
            const expired = Date.parse(key.expires_at) <= now;
            return (
              <tr key={key.id} data-key={key.prefix}>
                <th scope="row">{shown(key.name)}</th>
                <td data-label="Prefix">
                  <code>hub_{key.prefix}…</code>
                </td>
                {owners && <td data-label="User">{shown(owners.get(key.user_id) ?? key.user_id)}</td>}
                <td data-label="Scope">{scopeOf(key, names)}</td>
                <td data-label="Expires" title={dateTime(key.expires_at)}>
                  {expired ? <Badge tone="bad">expired</Badge> : dateTime(key.expires_at)}
                </td>
                <td data-label="Last used" title={dateTime(key.last_used_at)}>
                  {ago(key.last_used_at, now)}
                </td>
                <td className="wide">
                  <ConfirmButton
                    label="Revoke"
                    labelDetail={`key ${key.name} (hub_${key.prefix})`}
                    danger
                    question="Revoke this key? Programs using it are refused at once."
                    confirmLabel="Revoke key"
                    keepLabel="Keep it"
                    onConfirm={async () => {
                      await call(hub.DELETE("/identity/api-keys/{api_key_id}", { params: { path: { api_key_id: key.id } } }));
                      onRevoked();
                    }}
                  />
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
