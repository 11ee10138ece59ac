/** Bulk cancel and retry of what the Jobs list's filters select, always counted by a dry run first (admins). */
import { useEffect, useState } from "react";
import { call, hub, type BulkActionResult } from "../../api";
import { count, isoOfLocal } from "../../format";
import { ErrorMessage, useSubmission } from "../../ui";
import { type Filters } from "./job-filters";

type BulkKind = "cancel" | "retry";
const BULK = {
  cancel: { statuses: ["queued", "running"], verb: "Cancel", done: "Cancelled", keep: "Keep them" },
  retry: { statuses: ["failed", "cancelled"], verb: "Retry", done: "Retried", keep: "Leave them" },
} as const;
/** Most jobs one bulk action takes (the API's maximum). */
const BULK_LIMIT = 10_000;

/**
 * The bulk endpoints select by automation, status and creation time only: with any other filter
 * set they would act on more jobs than the list shows, so they are offered only without one.
 */
export function BulkActions({ filters, fixedAutomation, onDone }: { filters: Filters; fixedAutomation: boolean; onDone: () => void }) {
  const [preview, setPreview] = useState<{ kind: BulkKind; statuses: string[]; result: BulkActionResult }>();
  const [outcome, setOutcome] = useState<string>();
  const submission = useSubmission();
  const { busy, error } = submission;
  const narrowerFilters =
    filters.finishedAfter || filters.finishedBefore || filters.createdBy || filters.errorContains.trim() || filters.context.some((row) => row.name.trim());

  // Another filter makes the preview's count stale.
  useEffect(() => setPreview(undefined), [filters]);

  const run = async (kind: BulkKind, dryRun: boolean) => {
    const applicable: readonly string[] = BULK[kind].statuses;
    const statuses = filters.status && applicable.includes(filters.status) ? [filters.status] : [...applicable];
    const common = {
      ...(filters.automationId ? { automation_id: filters.automationId } : {}),
      ...(filters.createdAfter ? { created_after: isoOfLocal(filters.createdAfter) } : {}),
      ...(filters.createdBefore ? { created_before: isoOfLocal(filters.createdBefore) } : {}),
      dry_run: dryRun,
      limit: BULK_LIMIT,
    };
    setOutcome(undefined);
    await submission.run(async () => {
      const result =
        kind === "cancel"
          ? await call(hub.POST("/jobs/bulk-cancel", { body: { ...common, status: statuses as ("queued" | "running")[] } }))
          : await call(hub.POST("/jobs/bulk-retry", { body: { ...common, status: statuses as ("failed" | "cancelled")[] } }));
      if (dryRun) setPreview({ kind, statuses, result });
      else {
        setPreview(undefined);
        setOutcome(`${BULK[kind].done} ${count(result.affected, "job")}.`);
        onDone();
      }
    });
  };

  const statusFilterFits = (kind: BulkKind) => !filters.status || (BULK[kind].statuses as readonly string[]).includes(filters.status);
  const scope = filters.automationId ? "" : fixedAutomation ? "" : " of every automation";

  return (
    <div className="bulk" role="group" aria-label="Bulk actions">
      {!preview && (
        <>
          <button type="button" disabled={busy || Boolean(narrowerFilters) || !statusFilterFits("cancel")} onClick={() => void run("cancel", true)}>
            Cancel matching jobs…
          </button>
          <button type="button" disabled={busy || Boolean(narrowerFilters) || !statusFilterFits("retry")} onClick={() => void run("retry", true)}>
            Retry matching jobs…
          </button>
          {narrowerFilters && (
            <span className="hint">Bulk actions select by status, automation and creation time only: clear the other filters to use them.</span>
          )}
        </>
      )}
      {preview && (
        <div className="preview" role="alert">
          {preview.result.matched === 0 ? (
            <>
              <span>No {preview.statuses.join(" or ")} job matches the filters.</span>
              <button type="button" onClick={() => setPreview(undefined)}>
                OK
              </button>
            </>
          ) : (
            <>
              <span>
                {`Dry run: ${count(preview.result.matched, `${preview.statuses.join(" or ")} job`)}${scope}${preview.result.matched >= BULK_LIMIT ? " (or more)" : ""} would be ${preview.kind === "cancel" ? "cancelled" : "retried"}.`}
              </span>
              <button type="button" className={preview.kind === "cancel" ? "danger" : "primary"} disabled={busy} onClick={() => void run(preview.kind, false)}>
                {BULK[preview.kind].verb} {count(preview.result.matched, "job")}
              </button>
              <button type="button" disabled={busy} onClick={() => setPreview(undefined)}>
                {BULK[preview.kind].keep}
              </button>
            </>
          )}
        </div>
      )}
      {outcome && (
        <p role="status" className="notice">
          {outcome}
        </p>
      )}
      {error && <ErrorMessage error={error} />}
    </div>
  );
}
