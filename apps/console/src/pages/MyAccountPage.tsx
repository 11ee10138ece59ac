/** The signed-in user's own account: who they are, and changing their password. */
import { useState, type FormEvent } from "react";
import { call, hub, storeToken } from "../api";
import { useUser } from "../session";
import { ErrorMessage, Field, useSubmission } from "../ui";
import { shown } from "../shown";

export function MyAccountPage() {
  const me = useUser();
  return (
    <>
      <h1>My account</h1>
      <p>
        Signed in as <strong>{shown(me.email)}</strong> ({me.role}).
      </p>
      <ChangePasswordForm />
    </>
  );
}

function ChangePasswordForm() {
  const [current, setCurrent] = useState("");
  const [next, setNext] = useState("");
  const [repeated, setRepeated] = useState("");
  const [done, setDone] = useState(false);
  const { busy, error, issues, run, refuse } = useSubmission();

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setDone(false);
    if (next !== repeated) {
      refuse({ repeated: "The two new passwords differ." });
      return;
    }
    await run(async () => {
      const token = await call(hub.PUT("/identity/me/password", { body: { current_password: current, new_password: next } }));
      // The hub refuses every earlier token of this user from now on: this tab goes on with the new one.
      storeToken(token.access_token);
      setCurrent("");
      setNext("");
      setRepeated("");
      setDone(true);
    });
  };

  return (
    <section aria-labelledby="password-title" className="panel">
      <h2 id="password-title">Change your password</h2>
      <form className="form" onSubmit={(event) => void submit(event)}>
        <Field label="Current password" error={issues.current_password}>
          {(props) => (
            <input {...props} type="password" required autoComplete="current-password" value={current} onChange={(event) => setCurrent(event.target.value)} />
          )}
        </Field>
        <Field label="New password" hint="Every other session of yours is signed out." error={issues.new_password}>
          {(props) => <input {...props} type="password" required autoComplete="new-password" value={next} onChange={(event) => setNext(event.target.value)} />}
        </Field>
        <Field label="Repeat the new password" error={issues.repeated}>
          {(props) => (
            <input {...props} type="password" required autoComplete="new-password" value={repeated} onChange={(event) => setRepeated(event.target.value)} />
          )}
        </Field>
        <div className="actions">
          <button type="submit" className="primary" disabled={busy}>
            Change password
          </button>
        </div>
      </form>
      {done && (
        <p role="status" className="notice">
          Your password is changed. Other sessions signed in with the old one are signed out; this one goes on.
        </p>
      )}
      {error && <ErrorMessage error={error} />}
    </section>
  );
}
