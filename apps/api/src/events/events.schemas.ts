import { z } from "zod";
import { isoDateTime, uuid } from "@hub/shared";
import { pageQueryShape } from "../http/pagination";

export const EVENTS_DEFAULT_LIMIT = 200;

export const listEventsQuery = z.object({
  aggregate_id: uuid().optional(),
  event_type: z.string().optional(),
  since: isoDateTime().optional().describe("Inclusive lower bound on created_at"),
  until: isoDateTime().optional().describe("Exclusive upper bound on created_at"),
  ...pageQueryShape(EVENTS_DEFAULT_LIMIT),
});
export type ListEventsQuery = z.output<typeof listEventsQuery>;

export const eventRecord = z.object({
  id: z.uuid(),
  aggregate_id: z.uuid(),
  event_type: z.string(),
  actor_id: z.uuid().nullable(),
  payload: z.record(z.string(), z.unknown()),
  dispatched_at: z.iso.datetime().nullable(),
  created_at: z.iso.datetime(),
});
export type EventRecord = z.infer<typeof eventRecord>;
