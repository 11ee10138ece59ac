/**
 * An automation's approval settings (CONTRACT §6.17): `requires_approval`, `approver_ids` and
 * `approval_timeout_seconds` as a body sets them, the record shows them and the events carry them.
 */
import { users, type Automation, type Executor, type automations } from "@hub/db";
import type { EventPayload, ValidationIssue } from "@hub/shared";
import type { CreateAutomationInput, ReplaceAutomationInput } from "./automations.schemas";

export interface ApprovalSettings {
  requires_approval: boolean;
  approver_ids: string[];
  approval_timeout_seconds: number | null;
}

type ApprovalEventFields = Pick<EventPayload<"automation.updated">, keyof ApprovalSettings>;

export function approvalSettingsOf(automation: Pick<Automation, "requiresApproval" | "approverIds" | "approvalTimeoutSeconds">): ApprovalSettings {
  return {
    requires_approval: automation.requiresApproval,
    approver_ids: [...automation.approverIds],
    approval_timeout_seconds: automation.approvalTimeoutSeconds,
  };
}

/**
 * The second phase's check of `approver_ids` (CONTRACT §1, §6.17): each id of no active user is a
 * 422 at `["body","approver_ids",k]`. One read, only when the body names approvers.
 */
export async function approverIssues(db: Executor, ids: readonly string[] | undefined): Promise<ValidationIssue[]> {
  if (ids === undefined || ids.length === 0) return [];
  const active = await users.activeUserIdsAmong(db, ids);
  return ids.flatMap((id, k) =>
    active.has(id.toLowerCase()) ? [] : [{ loc: ["body", "approver_ids", k], msg: "Value error, no active user has this id", type: "value_error" }],
  );
}

/** What a new automation stores, and what its `automation.created` event carries (the settings set). */
export function newApprovalSettings(input: CreateAutomationInput): {
  stored: Pick<automations.NewAutomation, "requiresApproval" | "approverIds" | "approvalTimeoutSeconds">;
  event: ApprovalEventFields;
} {
  const approverIds = input.approver_ids.map((id) => id.toLowerCase());
  const event: ApprovalEventFields = {};
  if (input.requires_approval) event.requires_approval = true;
  if (approverIds.length > 0) event.approver_ids = approverIds;
  if (input.approval_timeout_seconds !== null) event.approval_timeout_seconds = input.approval_timeout_seconds;
  return { stored: { requiresApproval: input.requires_approval, approverIds, approvalTimeoutSeconds: input.approval_timeout_seconds }, event };
}

/** What a PUT changes of the approval settings (omitted: the stored value), with the event's fields. */
export function changedApprovalSettings(
  input: ReplaceAutomationInput,
  current: Automation,
): { changes: automations.AutomationChanges; event: ApprovalEventFields } {
  const changes: automations.AutomationChanges = {};
  const event: ApprovalEventFields = {};
  if (input.requires_approval !== undefined && input.requires_approval !== current.requiresApproval) {
    event.requires_approval = changes.requiresApproval = input.requires_approval;
  }
  if (input.approver_ids !== undefined) {
    const ids = input.approver_ids.map((id) => id.toLowerCase());
    const same = ids.length === current.approverIds.length && ids.every((id, i) => id === current.approverIds[i]);
    if (!same) event.approver_ids = changes.approverIds = ids;
  }
  if (input.approval_timeout_seconds !== undefined && input.approval_timeout_seconds !== current.approvalTimeoutSeconds) {
    event.approval_timeout_seconds = changes.approvalTimeoutSeconds = input.approval_timeout_seconds;
  }
  return { changes, event };
}
