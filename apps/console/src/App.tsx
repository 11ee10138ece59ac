/** The frame every page shares: sign-in gate, header with navigation and live status, the page. */
import { useEffect, useRef } from "react";
import { LiveEventsProvider, useLiveStatus } from "./live";
import { AutomationPage } from "./pages/AutomationPage";
import { AutomationsPage } from "./pages/AutomationsPage";
import { ApiKeysPage } from "./pages/ApiKeysPage";
import { EditAutomationPage } from "./pages/EditAutomationPage";
import { JobsPage } from "./pages/JobsPage";
import { SectorsPage } from "./pages/SectorsPage";
import { WebhookPage, WebhooksPage } from "./pages/WebhooksPage";
import { EventsPage } from "./pages/EventsPage";
import { MyAccountPage } from "./pages/MyAccountPage";
import { JobPage } from "./pages/JobPage";
import { MaintenancePage } from "./pages/MaintenancePage";
import { NewAutomationPage } from "./pages/NewAutomationPage";
import { NewJobPage } from "./pages/NewJobPage";
import { SignInPage } from "./pages/SignInPage";
import { UsersPage } from "./pages/UsersPage";
import { AlertBar } from "./pages/alerts/AlertBar";
import { AlertsPage } from "./pages/alerts/AlertsPage";
import { ApprovalsPage } from "./pages/approvals/ApprovalsPage";
import { useApprovalCount } from "./pages/approvals/approval-count";
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
  const approvalCount = useApprovalCount();

  // A new page: move focus to its heading, as a full page load would put a screen reader there.
  useEffect(() => {
    const heading = main.current?.querySelector("h1");
    if (heading) {
      heading.setAttribute("tabindex", "-1");
      heading.focus({ preventScroll: false });
    }
  }, [pathname]);

  const section = sectionOf(route);
  const navLink = (to: string, name: Section, text: string) => (
    <Link to={to} aria-current={section === name ? "page" : undefined}>
      {text}
    </Link>
  );
  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="top">
        <span className="brand">Automation Hub</span>
        <nav aria-label="Main">
          {navLink("/automations", "automations", "Automations")}
          {navLink("/jobs", "jobs", "Jobs")}
          <Link to="/approvals" aria-current={section === "approvals" ? "page" : undefined}>
            Approvals
            {approvalCount !== undefined && approvalCount !== "0" && (
              <>
                <span className="nav-count" aria-hidden="true" data-testid="approval-count">
                  {approvalCount}
                </span>
                <span className="visually-hidden">, {approvalCount} waiting</span>
              </>
            )}
          </Link>
          {navLink("/events", "events", "Events")}
          {navLink("/alerts", "alerts", "Alerts")}
          {navLink("/sectors", "sectors", "Sectors")}
          {navLink("/maintenance", "maintenance", "Maintenance")}
          {user.isAdmin && navLink("/webhooks", "webhooks", "Webhooks")}
          {user.isAdmin && navLink("/users", "users", "Users")}
          {navLink("/api-keys", "api-keys", "Api keys")}
          {navLink("/account", "account", "My account")}
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
      <AlertBar />
      <main id="main" ref={main}>
        <Page route={route} />
      </main>
    </>
  );
}

type Section = "automations" | "jobs" | "approvals" | "events" | "alerts" | "sectors" | "maintenance" | "webhooks" | "users" | "api-keys" | "account";

/** The navigation entry a page belongs to. */
function sectionOf(route: Route): Section | undefined {
  switch (route.page) {
    case "automations":
    case "new-automation":
    case "automation":
    case "edit-automation":
    case "new-job":
      return "automations";
    case "jobs":
    case "job":
      return "jobs";
    case "webhooks":
    case "webhook":
      return "webhooks";
    case "approvals":
    case "events":
    case "alerts":
    case "sectors":
    case "maintenance":
    case "users":
    case "api-keys":
    case "account":
      return route.page;
    case "not-found":
      return undefined;
    default: {
      const unknown: never = route;
      throw new Error(`unknown route ${JSON.stringify(unknown)}`);
    }
  }
}

function Page({ route }: { route: Route }) {
  switch (route.page) {
    case "automations":
      return <AutomationsPage />;
    case "new-automation":
      return <NewAutomationPage />;
    case "automation":
      return <AutomationPage key={route.automationId} automationId={route.automationId} />;
    case "edit-automation":
      return <EditAutomationPage key={route.automationId} automationId={route.automationId} />;
    case "jobs":
      return <JobsPage />;
    case "approvals":
      return <ApprovalsPage />;
    case "webhooks":
      return <WebhooksPage />;
    case "webhook":
      return <WebhookPage key={route.webhookId} webhookId={route.webhookId} />;
    case "api-keys":
      return <ApiKeysPage />;
    case "sectors":
      return <SectorsPage />;
    case "new-job":
      return <NewJobPage key={route.automationId} automationId={route.automationId} />;
    case "job":
      return <JobPage key={route.jobId} jobId={route.jobId} />;
    case "events":
      return <EventsPage />;
    case "maintenance":
      return <MaintenancePage />;
    case "users":
      return <UsersPage />;
    case "alerts":
      return <AlertsPage />;
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
