/** The navigation's count of the approvals the signed-in user may decide, kept live. */
import { hub, type HubEvent } from "../../api";
import { useLiveEvents } from "../../live";
import { useCoalesced, useResource } from "../../ui";

/** The count shown goes up to this; beyond, "99+". */
const COUNT_CAP = 100;

const APPROVAL_EVENTS = new Set(["job.approval_requested", "job.approved", "job.rejected", "job.cancelled"]);

/** An event that may change what waits for a decision. */
export function isApprovalEvent(event: HubEvent): boolean {
  return APPROVAL_EVENTS.has(event.event_type);
}

/** "3", "99+", or undefined while unknown (or when the read failed: the link still works). */
export function useApprovalCount(): string | undefined {
  const count = useResource(async () => {
    const { data } = await hub.GET("/approvals", { params: { query: { limit: COUNT_CAP } } });
    return data?.length;
  }, []);
  const reload = useCoalesced(() => count.reload(), 500);
  useLiveEvents((event) => {
    if (event === "reset" || isApprovalEvent(event)) reload();
  });
  if (count.data === undefined) return undefined;
  return count.data >= COUNT_CAP ? `${COUNT_CAP - 1}+` : String(count.data);
}
