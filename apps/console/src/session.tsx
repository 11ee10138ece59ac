/** Who is signed in: the login token (sessionStorage, this tab only) and the user it belongs to. */
import { createContext, useCallback, useContext, useEffect, useState, type ReactNode } from "react";
import { call, hub, storedToken, storeToken, whenSessionRefused, type User } from "./api";
import { ssoErrorSentence, takeSsoReturn } from "./sso";

/** Read before the first render, so the code leaves the address bar at once (and a re-render cannot redeem it twice). */
const ssoReturn = takeSsoReturn();

interface SessionValue {
  user: User | undefined;
  /** True while a stored token is being checked at start-up. */
  restoring: boolean;
  /** Why the last session ended, shown on the sign-in page. */
  notice: string | undefined;
  signIn(email: string, password: string): Promise<void>;
  signOut(notice?: string): void;
}

const SessionContext = createContext<SessionValue | undefined>(undefined);

export function SessionProvider({ children }: { children: ReactNode }) {
  const [user, setUser] = useState<User>();
  const [restoring, setRestoring] = useState(() => storedToken() !== undefined || ssoReturn.code !== undefined);
  const [notice, setNotice] = useState<string | undefined>(() => (ssoReturn.error === undefined ? undefined : ssoErrorSentence(ssoReturn.error)));

  const signOut = useCallback((message?: string) => {
    storeToken(undefined);
    setUser(undefined);
    setNotice(message);
  }, []);

  useEffect(() => {
    whenSessionRefused(() => {
      if (storedToken() !== undefined) signOut("Your session has ended (it expired, or your account was changed). Sign in again.");
    });
    const ssoCode = ssoReturn.code;
    ssoReturn.code = undefined;
    if (ssoCode !== undefined) {
      // A single sign-on just finished: its one-time code becomes this tab's login token.
      call(hub.POST("/identity/oidc/token", { body: { code: ssoCode } }))
        .then((token) => {
          storeToken(token.access_token);
          return call(hub.GET("/identity/me"));
        })
        .then(setUser, () => {
          storeToken(undefined);
          setNotice(ssoErrorSentence("invalid_request"));
        })
        .finally(() => setRestoring(false));
      return;
    }
    if (storedToken() === undefined) return;
    call(hub.GET("/identity/me"))
      .then(setUser, () => storeToken(undefined))
      .finally(() => setRestoring(false));
  }, [signOut]);

  const signIn = useCallback(async (email: string, password: string) => {
    const token = await call(hub.POST("/identity/token", { body: { email, password } }));
    storeToken(token.access_token);
    try {
      setUser(await call(hub.GET("/identity/me")));
      setNotice(undefined);
    } catch (error) {
      storeToken(undefined);
      throw error;
    }
  }, []);

  return <SessionContext.Provider value={{ user, restoring, notice, signIn, signOut }}>{children}</SessionContext.Provider>;
}

export function useSession(): SessionValue {
  const session = useContext(SessionContext);
  if (!session) throw new Error("useSession outside SessionProvider");
  return session;
}

/** The signed-in user (pages below the sign-in gate only). */
export function useUser(): User & { isAdmin: boolean } {
  const { user } = useSession();
  if (!user) throw new Error("useUser without a signed-in user");
  return { ...user, isAdmin: user.role === "admin" };
}
