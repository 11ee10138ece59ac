/** Changing an automation's settings (admins), with the form "new automation" shares. */
import { call, hub } from "../api";
import { Link, navigate } from "../router";
import { useUser } from "../session";
import { ErrorMessage, Loading, useResource } from "../ui";
import { AutomationForm } from "./AutomationForm";
import { shown } from "../shown";

export function EditAutomationPage({ automationId }: { automationId: string }) {
  const user = useUser();
  const automation = useResource(() => call(hub.GET("/automations/{automation_id}", { params: { path: { automation_id: automationId } } })), [automationId]);
  if (automation.error && !automation.data) return <ErrorMessage error={automation.error} onRetry={automation.reload} />;
  if (!automation.data) return <Loading what="the automation" />;
  const record = automation.data;
  return (
    <>
      <p className="crumbs">
        <Link to="/automations">Automations</Link> / <Link to={`/automations/${automationId}`}>{shown(record.name)}</Link> /
      </p>
      <h1>Edit {shown(record.name)}</h1>
      {!user.isAdmin ? (
        <p>Only admins change automations.</p>
      ) : (
        <AutomationForm existing={record} cancelTo={`/automations/${automationId}`} onSaved={() => navigate(`/automations/${automationId}`)} />
      )}
    </>
  );
}
