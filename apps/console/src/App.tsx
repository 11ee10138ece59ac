/** The frame every page shares: sign-in gate, header with navigation and live status, the page. */
import { useEffect, useRef } from "react";
import { LiveEventsProvider, useLiveStatus } from "./live";
import { AutomationPage } from "./pages/AutomationPage";
import { AutomationsPage } from "./pages/AutomationsPage";
import { EventsPage } from "./pages/EventsPage";
import { MyAccountPage } from "./pages/MyAccountPage";
import { JobPage } from "./pages/JobPage";
import { NewAutomationPage } from "./pages/NewAutomationPage";
import { NewJobPage } from "./pages/NewJobPage";
import { SignInPage } from "./pages/SignInPage";
import { UsersPage } from "./pages/UsersPage";
import { Link, parseRoute, useLocation, type Route } from "./router";
import { useSession, useUser } from "./session";
import { Loading } from "./ui";

export function App() {
  const { user, restoring } = useSession();
  if (restoring) return <Loading what="your session" />;
  if (!user) return <SignInPage />;
  return (
    <LiveEventsProvider>
      <Shell />
    </LiveEventsProvider>
  );
}

const LIVE_TEXT = { connecting: "Connecting…", live: "Live", reconnecting: "Reconnecting…" } as const;

function Shell() {
  const user = useUser();
  const { signOut } = useSession();
  const status = useLiveStatus();
  const { pathname } = useLocation();
  const route = parseRoute(pathname);
  const main = useRef<HTMLElement>(null);

  // A new page: move focus to its heading, as a full page load would put a screen reader there.
  useEffect(() => {
    const heading = main.current?.querySelector("h1");
    if (heading) {
      heading.setAttribute("tabindex", "-1");
      heading.focus({ preventScroll: false });
    }
  }, [pathname]);

  const section = route.page === "events" || route.page === "users" || route.page === "account" ? route.page : "automations";
  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="top">
        <span className="brand">Automation Hub</span>
        <nav aria-label="Main">
          <Link to="/automations" aria-current={section === "automations" ? "page" : undefined}>
            Automations
          </Link>
          <Link to="/events" aria-current={section === "events" ? "page" : undefined}>
            Events
          </Link>
          {user.isAdmin && (
            <Link to="/users" aria-current={section === "users" ? "page" : undefined}>
              Users
            </Link>
          )}
          <Link to="/account" aria-current={section === "account" ? "page" : undefined}>
            My account
          </Link>
        </nav>
        <span className={`live live-${status}`} role="status" aria-label={`Live updates: ${LIVE_TEXT[status]}`}>
          {LIVE_TEXT[status]}
        </span>
        <span className="who">
          {user.email} <span className="role">({user.role})</span>
        </span>
        <button type="button" onClick={() => signOut()}>
          Sign out
        </button>
      </header>
      <main id="main" ref={main}>
        <Page route={route} />
      </main>
    </>
  );
}

function Page({ route }: { route: Route }) {
  switch (route.page) {
    case "automations":
      return <AutomationsPage />;
    case "new-automation":
      return <NewAutomationPage />;
    case "automation":
      return <AutomationPage key={route.automationId} automationId={route.automationId} />;
    case "new-job":
      return <NewJobPage key={route.automationId} automationId={route.automationId} />;
    case "job":
      return <JobPage key={route.jobId} jobId={route.jobId} />;
    case "events":
      return <EventsPage />;
    case "users":
      return <UsersPage />;
    case "account":
      return <MyAccountPage />;
    case "not-found":
      return (
        <>
          <h1>Page not found</h1>
          <p>
            There is no such page in the console. <Link to="/automations">See the automations</Link>.
          </p>
        </>
      );
    default: {
      const unknown: never = route;
      throw new Error(`unknown route ${JSON.stringify(unknown)}`);
    }
  }
}
