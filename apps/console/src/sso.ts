/**
 * What the hub's single sign-on callback left in the console's URL: a one-time code in the
 * fragment (`#sso_code=…`, never sent to a server or kept in history) or a refusal's reason
 * (`?sso_error=…`). Read once at start-up and removed from the address bar at once.
 */
export interface SsoReturn {
  code?: string;
  error?: string;
}

export function takeSsoReturn(): SsoReturn {
  const code = new URLSearchParams(window.location.hash.slice(1)).get("sso_code") ?? undefined;
  const query = new URLSearchParams(window.location.search);
  const error = query.get("sso_error") ?? undefined;
  if (code === undefined && error === undefined) return {};
  query.delete("sso_error");
  const search = query.toString();
  window.history.replaceState(null, "", `${window.location.pathname}${search ? `?${search}` : ""}`);
  return { code, error };
}

const SSO_ERRORS: Record<string, string> = {
  email_unverified: "Your identity provider has not verified your e-mail address, so the hub cannot sign you in with it.",
  unknown_user: "No hub account has your e-mail address. Ask an admin to create one.",
  deactivated: "Your hub account is deactivated. Ask an admin to reactivate it.",
  invalid_request: "The sign-in did not complete (it was used already, expired, or was started in another browser). Try again.",
  invalid_token: "The identity provider's answer could not be verified. Try again, or ask an admin to check the set-up.",
};

/** A refusal's reason as a sentence a person can act on. */
export function ssoErrorSentence(reason: string): string {
  return SSO_ERRORS[reason] ?? "Single sign-on did not succeed. Try again.";
}
