/**
 * Rotate the worker's key, asking for an overlap first (CONTRACT §6.21): 10 minutes offered, so the
 * worker can be restarted with the new key while the old one still works, and what happens to the
 * running jobs without one said before it is too late.
 */
import { useId, useState } from "react";
import { call, hub } from "../api";
import { ConfirmButton } from "../ui";

const OVERLAPS = [
  { seconds: 600, label: "10 minutes" },
  { seconds: 3600, label: "1 hour" },
  { seconds: 86_400, label: "1 day" },
  { seconds: 0, label: "No overlap" },
] as const;

export function RotateWorkerKey({ automationId, onRotated }: { automationId: string; onRotated: (apiKey: string) => void }) {
  const [overlapSeconds, setOverlapSeconds] = useState<number>(OVERLAPS[0].seconds);
  const selectId = useId();
  return (
    <ConfirmButton
      label="Rotate key"
      question={
        <>
          <label htmlFor={selectId}>Keep the current key working for</label>{" "}
          <select id={selectId} value={overlapSeconds} onChange={(event) => setOverlapSeconds(Number(event.target.value))}>
            {OVERLAPS.map((overlap) => (
              <option key={overlap.seconds} value={overlap.seconds}>
                {overlap.label}
              </option>
            ))}
          </select>
          <span className="sub rotate-consequence">
            {overlapSeconds === 0
              ? "The worker's current key stops working at once: the jobs it is running go back to the queue and run again, from the start, once a worker with the new key claims them."
              : "Time to restart the worker with the new key: the jobs it runs stay with it. Jobs still held by the old key when the time is up go back to the queue."}
          </span>
        </>
      }
      confirmLabel="Rotate the key"
      keepLabel="Keep the current key"
      onConfirm={async () => {
        const rotated = await call(
          hub.POST("/automations/{automation_id}/worker/api-key", {
            params: { path: { automation_id: automationId } },
            body: { overlap_seconds: overlapSeconds },
          }),
        );
        onRotated(rotated.api_key);
      }}
    />
  );
}
