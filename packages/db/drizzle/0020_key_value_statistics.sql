-- migration: additive. Statistics only: no table, column or function changes, so every build runs beside it.
-- hub_claim_jobs_v3 (migration 0017) probes one key value's queued jobs at a time (its first due job; whether it has
-- any queued). PL/pgSQL runs those probes on generic plans, which estimate `key_value = $1` as (1 - null_frac) /
-- n_distinct of the analysed column. When one customer's backlog is analysed before the other customers' jobs arrive
-- (a month-end batch: the usual shape), n_distinct is 1 and the planner expects every queued row of the automation
-- to match: it walks the automation's claim order (jobs_claim_idx) filtering on the key, reading the whole backlog for
-- each small customer's probe. Measured at 20,000 queued: 2.5 ms a probe, 15.7 ms of PostgreSQL per keyed start
-- (1.4 ms with this fix; issue 27). Fixing the column's n_distinct at 5 % of the table's rows makes a value rare in
-- every estimate, whatever the sample saw, so the probes take jobs_key_claim_idx (automation_id, key_value first);
-- sql/jobs/claim-key-plans.test.ts checks the plans after exactly that analyse. No other statement filters on
-- key_value by equality (stats.by_key and the gauges group by it, which this does not change). ANALYZE of that
-- one column stores the fixed figure now; autovacuum's analyses keep it.
ALTER TABLE "jobs" ALTER COLUMN "key_value" SET (n_distinct = -0.05);
--> statement-breakpoint
ANALYZE "jobs" ("key_value");
