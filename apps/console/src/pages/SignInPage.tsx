import { useState, type FormEvent } from "react";
import { useSession } from "../session";
import { ErrorMessage, useSubmission } from "../ui";

export function SignInPage() {
  const { signIn, notice } = useSession();
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const { busy, error, run } = useSubmission();

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    await run(() => signIn(email, password));
  };

  return (
    <main id="main" className="sign-in">
      <h1>Automation Hub</h1>
      <p>Sign in to see and run the hub&rsquo;s automations.</p>
      {notice && (
        <p className="notice" role="status">
          {notice}
        </p>
      )}
      <form onSubmit={(event) => void submit(event)} aria-describedby={error ? "sign-in-error" : undefined}>
        <div className="field">
          <label htmlFor="email">Email</label>
          <input id="email" type="email" autoComplete="username" required value={email} onChange={(event) => setEmail(event.target.value)} />
        </div>
        <div className="field">
          <label htmlFor="password">Password</label>
          <input
            id="password"
            type="password"
            autoComplete="current-password"
            required
            value={password}
            onChange={(event) => setPassword(event.target.value)}
          />
        </div>
        <button type="submit" className="primary" disabled={busy}>
          {busy ? "Signing in…" : "Sign in"}
        </button>
      </form>
      {error && (
        <div id="sign-in-error">
          <ErrorMessage error={error} />
        </div>
      )}
      <p className="hint">Your session lasts as long as this tab (or until the hub&rsquo;s token expires).</p>
    </main>
  );
}
