/**
 * The job page's approval (CONTRACT §6.17): where it stands, who decided and why, and — for a
 * pending one the signed-in user may decide — Approve and Reject.
 */
import { call, hub, type Automation, type Job } from "../../api";
import { ago, dateTime, relative } from "../../format";
import { useUser } from "../../session";
import { shown } from "../../shown";
import { Badge, ShortId, useResource } from "../../ui";
import { Decide } from "./Decide";

const STATUS_TEXT = {
  pending: { tone: "warn", text: "Awaiting approval" },
  approved: { tone: "good", text: "Approved" },
  rejected: { tone: "bad", text: "Rejected" },
  expired: { tone: "bad", text: "Expired undecided" },
  withdrawn: { tone: "neutral", text: "Withdrawn (the job was cancelled)" },
} as const;

export function ApprovalSection({ job, automation, now, onDecided }: { job: Job; automation: Automation | undefined; now: number; onDecided: () => void }) {
  const user = useUser();
  const approval = job.approval;
  if (!approval) return null;
  const { tone, text } = STATUS_TEXT[approval.status];
  const ownJob = job.created_by === user.id;
  const mayDecide = !ownJob && (user.isAdmin || (automation?.approver_ids ?? []).includes(user.id));
  return (
    <section aria-labelledby="approval-title">
      <h2 id="approval-title">Approval</h2>
      <p data-testid="approval-status">
        <Badge tone={tone}>{text}</Badge>
      </p>
      <dl className="settings">
        <dt>Requested</dt>
        <dd title={dateTime(approval.requested_at)}>{ago(approval.requested_at, now)}</dd>
        {approval.status === "pending" && (
          <>
            <dt>Expires</dt>
            <dd title={dateTime(approval.expires_at)}>{approval.expires_at ? relative(approval.expires_at, now) : "never"}</dd>
          </>
        )}
        {approval.decided_by && (
          <>
            <dt>Decided by</dt>
            <dd data-testid="approval-decider">
              <Decider id={approval.decided_by} />
            </dd>
          </>
        )}
        {approval.decided_at && (
          <>
            <dt>Decided</dt>
            <dd title={dateTime(approval.decided_at)}>{ago(approval.decided_at, now)}</dd>
          </>
        )}
        {approval.comment !== null && (
          <>
            <dt>Comment</dt>
            <dd className="comment">{shown(approval.comment)}</dd>
          </>
        )}
      </dl>
      {approval.status === "pending" &&
        (mayDecide ? (
          <Decide job={job} label="this job" onDecided={onDecided} />
        ) : (
          <p className="hint">
            {ownJob ? "You created this job, so someone else decides its approval." : "An admin or one of the automation's approvers decides it."}
          </p>
        ))}
    </section>
  );
}

/**
 * Who decided, as a person reads it: "you", or the decider's email for an admin (who may read users). Anyone else, and
 * an admin when the decider's account is deactivated (`GET /identity/users/{id}` is 404 then), sees the short id.
 */
function Decider({ id }: { id: string }) {
  const user = useUser();
  const decider = useResource(
    async () => (user.isAdmin && id !== user.id ? call(hub.GET("/identity/users/{user_id}", { params: { path: { user_id: id } } })) : undefined),
    [id, user.id, user.isAdmin],
  );
  if (id === user.id) return <>you</>;
  if (decider.data) return <>{shown(decider.data.email)}</>;
  return (
    <>
      another user <ShortId id={id} />
    </>
  );
}
