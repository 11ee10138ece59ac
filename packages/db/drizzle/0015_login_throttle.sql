-- migration: additive. New tables for the login throttle (CONTRACT §6.15) that builds before it never read or write.
-- Login failures are counted in PostgreSQL (not Redis) so that login keeps working, and stays
-- throttled, while Redis is down; the windows slide by PostgreSQL's clock, the same for every API
-- process. One row per counted subject (an e-mail, an e-mail and address pair, an address), its
-- recent attempts as an array bounded by the limit: adding one is a row lock and one update, and
-- concurrent logins for one subject queue on that lock instead of each reading a stale count.
-- E-mails appear only as SHA-256 digests: unknown e-mails are counted too, and an attacker's
-- inputs should not become readable rows.
CREATE TABLE "login_attempt_windows" (
	"subject" text PRIMARY KEY NOT NULL,
	"attempts" timestamp with time zone[] DEFAULT '{}' NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "login_attempt_windows_updated_idx" ON "login_attempt_windows" USING btree ("updated_at");
--> statement-breakpoint
CREATE TABLE "login_known_addresses" (
	"email_digest" text NOT NULL,
	"address" text NOT NULL,
	"signed_in_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "login_known_addresses_pkey" PRIMARY KEY("email_digest","address")
);
--> statement-breakpoint
CREATE INDEX "login_known_addresses_signed_in_idx" ON "login_known_addresses" USING btree ("signed_in_at");
