/** Who is signed in: the login token (sessionStorage, this tab only) and the user it belongs to. */
import { createContext, useCallback, useContext, useEffect, useState, type ReactNode } from "react";
import { call, hub, storedToken, storeToken, whenSessionRefused, type User } from "./api";

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
  const [restoring, setRestoring] = useState(() => storedToken() !== undefined);
  const [notice, setNotice] = useState<string>();

  const signOut = useCallback((message?: string) => {
    storeToken(undefined);
    setUser(undefined);
    setNotice(message);
  }, []);

  useEffect(() => {
    whenSessionRefused(() => {
      if (storedToken() !== undefined) signOut("Your session has ended (it expired, or your account was changed). Sign in again.");
    });
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
