/** Hub users (admins): the active ones, creating one, deactivating one. */
import { useState, type FormEvent } from "react";
import { ApiError, call, describeError, hub, nextCursor, type User } from "../api";
import { dateTime } from "../format";
import { useLiveEvents } from "../live";
import { useUser } from "../session";
import { Badge, ConfirmButton, Empty, ErrorMessage, Field, Loading, useCoalesced, useResource } from "../ui";

async function listAllUsers(): Promise<User[]> {
  const users: User[] = [];
  let cursor: string | undefined;
  do {
    const request = hub.GET("/identity/users", { params: { query: { limit: 1000, ...(cursor ? { cursor } : {}) } } });
    users.push(...(await call(request)));
    cursor = nextCursor((await request).response);
  } while (cursor);
  return users;
}

export function UsersPage() {
  const me = useUser();
  const users = useResource(listAllUsers, []);
  const reload = useCoalesced(() => users.reload());
  useLiveEvents((event) => {
    if (event === "reset" || event.event_type.startsWith("user.")) reload();
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
      <NewUserForm onCreated={reload} />
      <section aria-labelledby="users-title">
        <h2 id="users-title">Active users</h2>
        {users.error && <ErrorMessage error={users.error} onRetry={users.reload} />}
        {!users.data ? (
          !users.error && <Loading what="users" />
        ) : users.data.length === 0 ? (
          <Empty>No active users.</Empty>
        ) : (
          <div className="table-wrap">
            <table>
              <caption className="visually-hidden">Active users</caption>
              <thead>
                <tr>
                  <th scope="col">Email</th>
                  <th scope="col">Role</th>
                  <th scope="col">Since</th>
                  <th scope="col">Action</th>
                </tr>
              </thead>
              <tbody>
                {users.data.map((user) => (
                  <tr key={user.id}>
                    <th scope="row">{user.email}</th>
                    <td>
                      <Badge tone={user.role === "admin" ? "info" : "neutral"}>{user.role}</Badge>
                    </td>
                    <td>{dateTime(user.created_at)}</td>
                    <td>
                      {user.id === me.id ? (
                        <span className="muted">you</span>
                      ) : (
                        <ConfirmButton
                          label={`Deactivate ${user.email}`}
                          danger
                          question={`Deactivate ${user.email}? They are signed out at once and cannot sign in again.`}
                          confirmLabel="Deactivate"
                          onConfirm={async () => {
                            await call(hub.DELETE("/identity/users/{user_id}", { params: { path: { user_id: user.id } } }));
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

function NewUserForm({ onCreated }: { onCreated: () => void }) {
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [role, setRole] = useState<"employee" | "admin">("employee");
  const [issues, setIssues] = useState<Record<string, string>>({});
  const [error, setError] = useState<string>();
  const [created, setCreated] = useState<string>();
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    setIssues({});
    setCreated(undefined);
    try {
      await call(hub.POST("/identity/users", { body: { email, password, role } }));
      setCreated(`Created ${email} (${role}).`);
      setEmail("");
      setPassword("");
      onCreated();
    } catch (failure) {
      if (failure instanceof ApiError) setIssues(Object.fromEntries(failure.issues.map((issue) => [issue.field, issue.message])));
      setError(describeError(failure));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section aria-labelledby="new-user-title" className="panel">
      <h2 id="new-user-title">New user</h2>
      <form className="inline-form" onSubmit={(event) => void submit(event)}>
        <Field label="Email" error={issues.email}>
          {(props) => <input {...props} type="email" required autoComplete="off" value={email} onChange={(event) => setEmail(event.target.value)} />}
        </Field>
        <Field label="Password" hint="1–72 bytes; give it to the user over a safe channel." error={issues.password}>
          {(props) => <input {...props} type="password" required autoComplete="new-password" value={password} onChange={(event) => setPassword(event.target.value)} />}
        </Field>
        <Field label="Role" error={issues.role}>
          {(props) => (
            <select {...props} value={role} onChange={(event) => setRole(event.target.value as "employee" | "admin")}>
              <option value="employee">employee</option>
              <option value="admin">admin</option>
            </select>
          )}
        </Field>
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
