/**
 * The automation form's approval settings (CONTRACT §6.17): whether its jobs need an approval,
 * who may give it besides admins (picked by e-mail from the active users), and when a request
 * expires. The form sends {@link approvalBody} with the rest of its settings.
 */
import { useState } from "react";
import { call, hub, type Automation, type User } from "../../api";
import { Field, useResource } from "../../ui";
import { shown } from "../../shown";

export interface ApprovalSettingsState {
  requiresApproval: boolean;
  approverIds: string[];
  timeoutMinutes: string;
}

export function useApprovalSettings(existing: Automation | undefined) {
  return useState<ApprovalSettingsState>({
    requiresApproval: existing?.requires_approval ?? false,
    approverIds: existing?.approver_ids ?? [],
    timeoutMinutes: existing?.approval_timeout_seconds == null ? "" : String(existing.approval_timeout_seconds / 60),
  });
}

/** The approval fields of a POST or PUT /automations body; an empty timeout is none (null). */
export function approvalBody(state: ApprovalSettingsState) {
  const minutes = state.timeoutMinutes.trim();
  return {
    requires_approval: state.requiresApproval,
    approver_ids: state.approverIds,
    approval_timeout_seconds: minutes === "" ? null : Math.round(Number(minutes) * 60),
  };
}

/** Every active user (the approvers to pick from): admins only read users, and only admins edit automations. */
async function readActiveUsers(): Promise<User[]> {
  return call(hub.GET("/identity/users", { params: { query: { limit: 1000 } } }));
}

export function ApprovalSettings({
  state,
  onChange,
  issues,
}: {
  state: ApprovalSettingsState;
  onChange: (next: ApprovalSettingsState) => void;
  issues: Record<string, string>;
}) {
  const users = useResource(readActiveUsers, []);
  const [email, setEmail] = useState("");
  const [notFound, setNotFound] = useState<string | undefined>();
  const byId = new Map((users.data ?? []).map((user) => [user.id, user]));
  const candidates = (users.data ?? []).filter((user) => !state.approverIds.includes(user.id));

  const add = () => {
    const wanted = email.trim().toLowerCase();
    const user = (users.data ?? []).find((candidate) => candidate.email.toLowerCase() === wanted);
    if (!user) {
      setNotFound(`No active user has the e-mail ${wanted || "(empty)"}`);
      return;
    }
    setNotFound(undefined);
    setEmail("");
    if (!state.approverIds.includes(user.id)) onChange({ ...state, approverIds: [...state.approverIds, user.id] });
  };

  return (
    <fieldset>
      <legend>Approval</legend>
      <label className="toggle">
        <input type="checkbox" checked={state.requiresApproval} onChange={(event) => onChange({ ...state, requiresApproval: event.target.checked })} /> Every
        job needs an approval before it runs
      </label>
      <p className="hint">Admins and the approvers below decide on the Approvals page; nobody decides a job they created themselves.</p>
      <div role="group" aria-label="Approvers">
        {state.approverIds.length === 0 ? (
          <p className="muted">No approvers: only admins decide.</p>
        ) : (
          <ul className="approvers">
            {state.approverIds.map((id, k) => (
              <li key={id}>
                {shown(byId.get(id)?.email ?? id)}
                {issues[`approver_ids.${k}`] && <span className="inline-error"> {issues[`approver_ids.${k}`]}</span>}{" "}
                <button type="button" onClick={() => onChange({ ...state, approverIds: state.approverIds.filter((other) => other !== id) })}>
                  Remove<span className="visually-hidden"> approver {byId.get(id)?.email ?? id}</span>
                </button>
              </li>
            ))}
          </ul>
        )}
        <div className="inline-form">
          <Field label="Approver e-mail" hint="An active user of any role." error={notFound ?? issues.approver_ids}>
            {(props) => (
              <input
                {...props}
                type="email"
                list="approver-candidates"
                value={email}
                onChange={(event) => setEmail(event.target.value)}
                onKeyDown={(event) => {
                  if (event.key === "Enter") {
                    event.preventDefault();
                    add();
                  }
                }}
              />
            )}
          </Field>
          <datalist id="approver-candidates">
            {candidates.map((user) => (
              <option key={user.id} value={user.email} />
            ))}
          </datalist>
          <button type="button" onClick={add} disabled={!users.data}>
            Add approver
          </button>
        </div>
      </div>
      <Field
        label="Expires after (minutes)"
        hint="1–43200: a request still undecided then cancels the job; empty: it never expires."
        error={issues.approval_timeout_seconds}
      >
        {(props) => (
          <input
            {...props}
            type="number"
            min={1}
            max={43_200}
            value={state.timeoutMinutes}
            onChange={(event) => onChange({ ...state, timeoutMinutes: event.target.value })}
          />
        )}
      </Field>
    </fieldset>
  );
}
