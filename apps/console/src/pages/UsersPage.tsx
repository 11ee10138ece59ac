/**
 * Hub users (admins): the active ones (and, on request, the deactivated ones), creating one,
 * changing a role or the sectors an employee reaches, resetting a password, deactivating and
 * reactivating.
 */
import { useState, type FormEvent } from "react";
import { call, hub, nextCursor, type Sector, type User } from "../api";
import { EditSectorsForm, SectorChoices, sectorIssue, sectorsText } from "./users/UserSectors";
import { dateTime } from "../format";
import { useLiveEvents } from "../live";
import { Link } from "../router";
import { useUser } from "../session";
import { Badge, ConfirmButton, Empty, ErrorMessage, Field, Loading, useCoalesced, useResource, useSubmission } from "../ui";
import { shown } from "../shown";

export async function listAllUsers(includeInactive: boolean): Promise<User[]> {
  const users: User[] = [];
  let cursor: string | undefined;
  do {
    const request = hub.GET("/identity/users", { params: { query: { limit: 1000, include_inactive: includeInactive, ...(cursor ? { cursor } : {}) } } });
    users.push(...(await call(request)));
    cursor = nextCursor((await request).response);
  } while (cursor);
  return users;
}

export function UsersPage() {
  const me = useUser();
  const [showInactive, setShowInactive] = useState(false);
  const users = useResource(() => listAllUsers(showInactive), [showInactive]);
  const sectors = useResource(() => call(hub.GET("/sectors", { params: { query: { limit: 1000 } } })), []);
  const reload = useCoalesced(() => users.reload());
  useLiveEvents((event) => {
    if (event === "reset" || event.event_type.startsWith("user.")) reload();
    if (event === "reset" || event.event_type === "sector.created") sectors.reload();
  });

  if (!me.isAdmin) {
    return (
      <>
        <h1>Users</h1>
        <p>Only admins manage users.</p>
      </>
    );
  }

  return (
    <>
      <h1>Users</h1>
      <NewUserForm sectors={sectors.data} onCreated={reload} />
      <section aria-labelledby="users-title">
        <h2 id="users-title">{showInactive ? "All users" : "Active users"}</h2>
        <label className="toggle">
          <input type="checkbox" checked={showInactive} onChange={(event) => setShowInactive(event.target.checked)} /> Show deactivated users
        </label>
        {users.error && <ErrorMessage error={users.error} onRetry={users.reload} />}
        {!users.data ? (
          !users.error && <Loading what="users" />
        ) : users.data.length === 0 ? (
          <Empty>No active users.</Empty>
        ) : (
          <div className="table-wrap" tabIndex={0}>
            <table>
              <caption className="visually-hidden">{showInactive ? "All users, deactivated ones included" : "Active users"}</caption>
              <thead>
                <tr>
                  <th scope="col">Email</th>
                  <th scope="col">Role</th>
                  <th scope="col">Sectors</th>
                  <th scope="col">Status</th>
                  <th scope="col">Since</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {users.data.map((user) => (
                  <tr key={user.id} data-user={user.email}>
                    <th scope="row">{shown(user.email)}</th>
                    <td data-label="Role">
                      <Badge tone={user.role === "admin" ? "info" : "neutral"}>{user.role}</Badge>
                    </td>
                    <td data-label="Sectors">{sectorsText(user, sectors.data)}</td>
                    <td data-label="Status">{user.is_active ? <Badge tone="good">active</Badge> : <Badge tone="warn">deactivated</Badge>}</td>
                    <td data-label="Since">{dateTime(user.created_at)}</td>
                    <td className="wide">
                      {user.id === me.id ? (
                        <span className="muted">
                          you (<Link to="/account">change your password</Link>)
                        </span>
                      ) : user.is_active ? (
                        <UserActions user={user} sectors={sectors.data ?? []} onChanged={reload} />
                      ) : (
                        <ConfirmButton
                          label={`Reactivate ${user.email}`}
                          question={`Reactivate ${user.email}? They sign in again with the password they had.`}
                          confirmLabel="Reactivate"
                          keepLabel="Keep deactivated"
                          onConfirm={async () => {
                            await call(hub.POST("/identity/users/{user_id}/reactivate", { params: { path: { user_id: user.id } } }));
                            reload();
                          }}
                        />
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
    </>
  );
}

/** What an admin can do to another active user: change the role or the sectors, reset the password, deactivate. */
function UserActions({ user, sectors, onChanged }: { user: User; sectors: readonly Sector[]; onChanged: () => void }) {
  const [resetting, setResetting] = useState(false);
  const [editingSectors, setEditingSectors] = useState(false);
  const [notice, setNotice] = useState<string>();
  const otherRole = user.role === "admin" ? "employee" : "admin";
  return (
    <div className="actions user-actions">
      <ConfirmButton
        label={`Make ${user.email} ${otherRole === "admin" ? "an admin" : "an employee"}`}
        question={`Make ${user.email} ${otherRole === "admin" ? "an admin" : "an employee"}? They sign in again; their api keys take the new role at once.`}
        confirmLabel={`Make ${otherRole}`}
        keepLabel={`Keep ${user.role}`}
        onConfirm={async () => {
          await call(hub.PATCH("/identity/users/{user_id}", { params: { path: { user_id: user.id } }, body: { role: otherRole } }));
          setNotice(undefined);
          onChanged();
        }}
      />
      {editingSectors ? (
        <EditSectorsForm
          user={user}
          sectors={sectors}
          onDone={(message) => {
            setEditingSectors(false);
            setNotice(message);
            if (message) onChanged();
          }}
        />
      ) : (
        <button type="button" onClick={() => setEditingSectors(true)}>
          Change sectors of {shown(user.email)}
        </button>
      )}
      {resetting ? (
        <ResetPasswordForm
          user={user}
          onDone={(message) => {
            setResetting(false);
            setNotice(message);
          }}
        />
      ) : (
        <button type="button" onClick={() => setResetting(true)}>
          Reset password of {shown(user.email)}
        </button>
      )}
      <ConfirmButton
        label={`Deactivate ${user.email}`}
        danger
        question={`Deactivate ${user.email}? They are signed out at once and cannot sign in until reactivated.`}
        confirmLabel="Deactivate"
        keepLabel="Keep active"
        onConfirm={async () => {
          await call(hub.DELETE("/identity/users/{user_id}", { params: { path: { user_id: user.id } } }));
          onChanged();
        }}
      />
      {notice && (
        <p role="status" className="notice">
          {notice}
        </p>
      )}
    </div>
  );
}

function ResetPasswordForm({ user, onDone }: { user: User; onDone: (message: string | undefined) => void }) {
  const [password, setPassword] = useState("");
  const { busy, error, run } = useSubmission();
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    await run(async () => {
      await call(hub.PUT("/identity/users/{user_id}/password", { params: { path: { user_id: user.id } }, body: { new_password: password } }));
      onDone(`${user.email} has a new password and is signed out: give it to them over a safe channel.`);
    });
  };
  return (
    <form className="inline-form" aria-label={`Reset the password of ${user.email}`} onSubmit={(event) => void submit(event)}>
      <Field label={`New password for ${user.email}`} error={error}>
        {(props) => (
          <input {...props} type="password" required autoComplete="new-password" value={password} onChange={(event) => setPassword(event.target.value)} />
        )}
      </Field>
      <button type="submit" className="primary" disabled={busy}>
        Set password
      </button>
      <button type="button" disabled={busy} onClick={() => onDone(undefined)}>
        Cancel
      </button>
    </form>
  );
}

function NewUserForm({ sectors, onCreated }: { sectors: readonly Sector[] | undefined; onCreated: () => void }) {
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [role, setRole] = useState<"employee" | "admin">("employee");
  // Every sector (null), or the sectors the employee reaches (CONTRACT §6.22).
  const [everySector, setEverySector] = useState(true);
  const [sectorIds, setSectorIds] = useState<string[]>([]);
  const [created, setCreated] = useState<string>();
  const { busy, error, issues, run } = useSubmission();

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setCreated(undefined);
    await run(async () => {
      await call(hub.POST("/identity/users", { body: { email, password, role, sector_ids: everySector ? null : sectorIds } }));
      setCreated(`Created ${email} (${role}).`);
      setEmail("");
      setPassword("");
      onCreated();
    });
  };

  return (
    <section aria-labelledby="new-user-title" className="panel">
      <h2 id="new-user-title">New user</h2>
      <form className="inline-form" onSubmit={(event) => void submit(event)}>
        <Field label="Email" error={issues.email}>
          {(props) => <input {...props} type="email" required autoComplete="off" value={email} onChange={(event) => setEmail(event.target.value)} />}
        </Field>
        <Field
          label="Password"
          hint="At most 72 bytes (the hub may require a minimum length); give it to the user over a safe channel."
          error={issues.password}
        >
          {(props) => (
            <input {...props} type="password" required autoComplete="new-password" value={password} onChange={(event) => setPassword(event.target.value)} />
          )}
        </Field>
        <Field label="Role" error={issues.role}>
          {(props) => (
            <select {...props} value={role} onChange={(event) => setRole(event.target.value as "employee" | "admin")}>
              <option value="employee">employee</option>
              <option value="admin">admin</option>
            </select>
          )}
        </Field>
        <fieldset className="sector-picker">
          <legend>Sectors</legend>
          <label className="toggle">
            <input type="checkbox" checked={everySector} onChange={(event) => setEverySector(event.target.checked)} /> Every sector
          </label>
          {!everySector && <SectorChoices sectors={sectors ?? []} chosen={sectorIds} onChange={setSectorIds} />}
          {sectorIssue(issues) && (
            <span className="inline-error" role="alert">
              {sectorIssue(issues)}
            </span>
          )}
          <p className="hint">An employee sees only the automations of its sectors, and everything under them. Admins see every sector.</p>
        </fieldset>
        <button type="submit" className="primary" disabled={busy}>
          Create user
        </button>
      </form>
      {created && (
        <p role="status" className="notice">
          {created}
        </p>
      )}
      {error && <ErrorMessage error={error} />}
    </section>
  );
}
