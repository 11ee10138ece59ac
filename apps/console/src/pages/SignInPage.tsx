import { useEffect, useState, type FormEvent } from "react";
import { call, hub } from "../api";
import { useSession } from "../session";
import { ErrorMessage, useSubmission } from "../ui";

export function SignInPage() {
  const { signIn, notice } = useSession();
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const { busy, error, run } = useSubmission();
  // Until the hub says otherwise, the password form (what every hub takes by default).
  const [options, setOptions] = useState<{ password_login: boolean; sso: { name: string } | null }>({ password_login: true, sso: null });
  useEffect(() => {
    call(hub.GET("/identity/oidc/options")).then(setOptions, () => undefined);
  }, []);

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
      {options.sso && (
        <p>
          <a className="button primary" href="/identity/oidc/login">
            Sign in with {options.sso.name}
          </a>
        </p>
      )}
      {options.password_login && (
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
      )}
      {error && (
        <div id="sign-in-error">
          <ErrorMessage error={error} />
        </div>
      )}
      <p className="hint">Your session lasts as long as this tab (or until the hub&rsquo;s token expires).</p>
    </main>
  );
}
