/**
 * Every job of every automation, newest first: the filters of the shared jobs list (so "what
 * failed in the last hour" is two clicks), pages, and the admins' bulk actions. Live: any job
 * event reads the page shown again (a burst costs one read).
 */
import { useState } from "react";
import { localOfIso } from "../format";
import { useLiveEvents } from "../live";
import { navigate } from "../router";
import { useUser } from "../session";
import { ErrorMessage, useCoalesced, useResource } from "../ui";
import { listAllAutomations } from "./AutomationsPage";
import { filtersFromSearch, filtersToSearch, JobsSection, NO_FILTERS, type Filters } from "./JobsSection";

const HOUR_MS = 3_600_000;

export function JobsPage() {
  const user = useUser();
  const automations = useResource(() => listAllAutomations(), []);
  const [version, setVersion] = useState(0);
  /** A preset replaces the list (and its filters) with a fresh one. */
  const [preset, setPreset] = useState<{ key: number; filters: Filters }>(() => ({ key: 0, filters: filtersFromSearch(window.location.search) }));
  // The URL follows the filters (replacing, not adding, history entries), so a filtered list can be shared or reloaded.
  const keepInUrl = (filters: Filters) => {
    const search = filtersToSearch(filters);
    if (search !== window.location.search) navigate(`/jobs${search}`, { replace: true });
  };
  const reloadJobs = useCoalesced(() => setVersion((value) => value + 1), 500);
  const reloadAutomations = useCoalesced(() => automations.reload());
  useLiveEvents((event) => {
    if (event === "reset" || event.event_type.startsWith("job.")) reloadJobs();
    if (event === "reset" || event.event_type === "automation.created" || event.event_type === "automation.updated") reloadAutomations();
  });
  const failedLastHour = () =>
    setPreset((previous) => ({
      key: previous.key + 1,
      filters: { ...NO_FILTERS, status: "failed", finishedAfter: localOfIso(new Date(Date.now() - HOUR_MS).toISOString()) },
    }));
  const mine = () => setPreset((previous) => ({ key: previous.key + 1, filters: { ...NO_FILTERS, createdBy: user.id } }));

  return (
    <>
      <div className="page-head">
        <h1>Jobs</h1>
        <span className="actions">
          <button type="button" onClick={failedLastHour}>
            Failed in the last hour
          </button>
          <button type="button" onClick={mine}>
            Created by me
          </button>
        </span>
      </div>
      <p className="sub">Every automation&apos;s jobs, newest first, updated live.</p>
      {automations.error && !automations.data && <ErrorMessage error={automations.error} onRetry={automations.reload} />}
      {/* The jobs do not wait for every automation (10 pages at 10,000): rows show an automation's id until its name is read. */}
      <JobsSection key={preset.key} automations={automations.data} version={version} initialFilters={preset.filters} onFiltersSettled={keepInUrl} />
    </>
  );
}
