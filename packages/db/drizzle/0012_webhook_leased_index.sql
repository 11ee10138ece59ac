-- migration: additive. A new partial index builds before it never rely on.
-- The webhook delivery loop counts a subscription's leased (in-flight) deliveries on every claim;
-- with only the pending indexes that count read every pending delivery of the subscription, so a
-- backlog of thousands made each claim take milliseconds (pnpm bench, a `*` subscription at peak).
-- Only deliveries under a lease are in this index: a handful per subscription.
CREATE INDEX "webhook_deliveries_leased_idx" ON "webhook_deliveries" USING btree ("webhook_id","lease_expires_at") WHERE "webhook_deliveries"."status" = 'pending' and "webhook_deliveries"."lease_expires_at" is not null;