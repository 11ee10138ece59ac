/** Creating an automation (admins), with the form "edit" shares. */
import { Link, navigate } from "../router";
import { useUser } from "../session";
import { AutomationForm } from "./AutomationForm";

export function NewAutomationPage() {
  const user = useUser();
  if (!user.isAdmin) {
    return (
      <>
        <h1>New automation</h1>
        <p>Only admins create automations.</p>
      </>
    );
  }
  return (
    <>
      <p className="crumbs">
        <Link to="/automations">Automations</Link> /
      </p>
      <h1>New automation</h1>
      <AutomationForm cancelTo="/automations" onSaved={(id) => navigate(`/automations/${id}`)} />
    </>
  );
}
