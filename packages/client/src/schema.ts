/**
 * Generated from the Automation Hub API's OpenAPI document by openapi-typescript:
 * `pnpm --filter @hub/client generate`. Do not edit by hand; the package's tests fail when this
 * file and the document drift apart.
 */

export interface paths {
    "/healthz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Liveness
         * @description 200 while the process serves HTTP, also while PostgreSQL or Redis is down (the process reconnects by itself): restart the process only when this fails. No credentials.
         */
        get: operations["checkLiveness"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/readyz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Readiness: PostgreSQL and Redis reachable
         * @description Probes PostgreSQL and Redis at once, each bounded to a second: 200 when both answer, else 503 naming the one that is down. Take the process out of a load balancer while it fails. No credentials.
         */
        get: operations["checkReadiness"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/sectors": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List sectors
         * @description Every sector, oldest first, a page at a time: follow the `Link` header until a response has none.
         */
        get: operations["listSectors"];
        put?: never;
        /**
         * Create a sector
         * @description Admins only. The name is unique (409 when taken); the colour is `#RRGGBB`. Writes a sector.created event.
         */
        post: operations["createSector"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/sectors/{sector_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a sector
         * @description One sector by id; 404 when there is none.
         */
        get: operations["getSector"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/identity/token": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Log in: exchange an e-mail and password for an access token
         * @description Answers a JWT access token valid for `expires_in` seconds (HUB_ACCESS_TOKEN_TTL_SECONDS), to send as `Authorization: Bearer …`. Takes JSON `{email, password}` or the OAuth2 password form (`username`, `password`), which is what /docs's Authorize sends. A wrong e-mail, a wrong password and a deactivated user all answer the same 401. Throttled (429 with Retry-After, whatever the password): more than HUB_LOGIN_MAX_PER_ADDRESS_PER_MINUTE (30) requests from one client address in a minute; more than HUB_LOGIN_MAX_FAILURES (10) failures of one e-mail from one address, or HUB_LOGIN_MAX_FAILURES_PER_EMAIL (100) of one e-mail from addresses it has not signed in from within 30 days, in the last 5 minutes. 503 with Retry-After when the server is too busy hashing passwords to check this one within 2 s.
         */
        post: operations["logIn"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/identity/me": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The caller's user record
         * @description The user the credentials belong to: id, e-mail, role and whether it is active.
         */
        get: operations["getCurrentUser"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/identity/me/password": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Change your own password
         * @description With a login token (an api key → 403). Checks `current_password` (wrong → 403, counted as a failed login of the caller's e-mail from this address: the login throttle's 429 with Retry-After applies), sets `new_password` and answers a new access token: every earlier login token of the caller stops working at once; api keys go on. Writes user.password_changed {user_id}.
         */
        put: operations["changeOwnPassword"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/identity/oidc/options": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * How one signs in to this hub
         * @description Public: whether passwords are taken and whether single sign-on is configured, with its name. The console's login page reads it.
         */
        get: operations["getSignInOptions"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/identity/oidc/login": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Start single sign-on: redirect to the identity provider
         * @description Answers 302 to the provider's authorization endpoint (authorization code with PKCE S256, scope `openid email`, a state and a nonce), and sets an HttpOnly cookie binding that state to this browser for 10 minutes, once. 404 when single sign-on is not configured; 503 with Retry-After until the provider has been discovered.
         */
        get: operations["startSingleSignOn"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/identity/oidc/callback": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The identity provider's redirect back to the hub
         * @description Register `<HUB_PUBLIC_URL>/identity/oidc/callback` at the provider. Exchanges the code, verifies the ID token (the issuer's JWKS, iss, aud, exp, nonce) and takes its e-mail only when `email_verified` is true. An active user → 303 to `/console/#sso_code=<code>` (a one-time code for POST /identity/oidc/token, valid 60 s); otherwise 303 to `/console/?sso_error=<reason>`: `email_unverified`, `unknown_user`, `deactivated`, `invalid_request` (a missing, used, expired or foreign state, or a provider error) or `invalid_token`.
         */
        get: operations["finishSingleSignOn"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/identity/oidc/token": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Exchange a single sign-on code for an access token
         * @description The console sends the `sso_code` of its URL's fragment. Answers what POST /identity/token answers, once per code, within 60 s of the sign-in; any other code → 400.
         */
        post: operations["redeemSingleSignOnCode"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/identity/users": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List users
         * @description Admins only. Active users, oldest first, a page at a time (follow the `Link` header); deactivated users only with `include_inactive=true`.
         */
        get: operations["listUsers"];
        put?: never;
        /**
         * Create a user
         * @description Admins, with a login token (an api key → 403). The e-mail is stored lower-case and is unique (409 when taken; when a deactivated user has it, the 409 names its reactivation); the password has at least HUB_PASSWORD_MIN_LENGTH characters and at most 72 UTF-8 bytes (bcrypt's limit; never silently cut) and is kept only as a bcrypt hash. Writes a user.created event.
         */
        post: operations["createUser"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/identity/users/{user_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get an active user
         * @description Admins only. 404 for an unknown or a deactivated user.
         */
        get: operations["getUser"];
        put?: never;
        post?: never;
        /**
         * Deactivate a user
         * @description Admins, with a login token. The user's tokens and api keys stop working at once; the record stays, and events still name it (POST /identity/users/{user_id}/reactivate brings it back). An admin cannot deactivate their own account (403) nor the last active admin (409).
         */
        delete: operations["deactivateUser"];
        options?: never;
        head?: never;
        /**
         * Change a user's role or sectors
         * @description Admins, with a login token. Takes `role` and/or `sector_ids` (neither → 422). A new role: the user's login tokens of the old role stop working at once (they sign in again); its api keys go on with the new role; writes user.role_changed {user_id, from, to}. New sectors: what the user reaches narrows or widens from this answer on, on every API process within 1 s, open streams included, and no credential stops working; writes user.sectors_changed {user_id, from, to}. What the user already has → 200, nothing changes, no event.
         */
        patch: operations["changeUserRole"];
        trace?: never;
    };
    "/identity/users/{user_id}/password": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Reset a user's password
         * @description Admins, with a login token. Sets another user's password; that user's login tokens stop working at once (api keys go on). Writes user.password_reset {user_id}.
         */
        put: operations["resetUserPassword"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/identity/users/{user_id}/reactivate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Reactivate a deactivated user
         * @description Admins, with a login token. The user signs in again with the password it had; its login tokens from before the deactivation stay refused; its api keys work again unless expired or deleted. Writes user.reactivated {user_id}.
         */
        post: operations["reactivateUser"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/identity/api-keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List api keys (never the keys themselves)
         * @description The caller's keys, newest first, a page at a time; admins may add `user_id=`, `all=true`, and `prefix=` (the 8 characters after `hub_`) to find a leaked key. Authenticated with an api key, the list holds that key only.
         */
        get: operations["listApiKeys"];
        put?: never;
        /**
         * Create an api key for a program
         * @description A credential for a program (a CI pipeline, a script): `Authorization: Bearer hub_…` then acts as the caller, with the caller's role, on every bearer endpoint until the key expires (`expires_in_days`, 1–365, default 90) or is deleted, or the user is deactivated. The key is in this answer only; the hub keeps its SHA-256 digest. Needs a login token (an api key cannot create keys: 403). Writes `api_key.created`. Optional scopes, fixed for the key's life: `automation_ids` (only those automations, within what the user reaches; any other → 422), `read_only` (only GET and streams, and DELETE of the key itself; anything else → 403 "This api key is read-only"), `role: "employee"` (an admin's key acting as an employee).
         */
        post: operations["createApiKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/identity/api-keys/{api_key_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Revoke an api key
         * @description Deletes one of the caller's keys (admins: anyone's); it stops working with the next request. Authenticated with an api key, only that same key may be deleted. Writes `api_key.revoked`.
         */
        delete: operations["revokeApiKey"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List events (the outbox), oldest first
         * @description Every state change (job.created, job.completed, automation.updated, …), written in the same transaction as the change, oldest first, filtered by aggregate (one, or a kind), type and time, a page at a time (follow the `Link` header). `dispatched_at` is set once the event relay has published the event to the Redis stream `hub:events`. Employees never see user.*, webhook.* or api_key.* events.
         */
        get: operations["listEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/events/stream": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Follow events live (server-sent events)
         * @description The event log as it happens, as server-sent events (`text/event-stream`): one message per event, its `data` the event record of GET /events (`dispatched_at` is null: the relay publishes an event before it stamps it) and its `id` the position in the Redis stream `hub:events`. Send that id back as `Last-Event-ID` when reconnecting to get what was missed first (at most 1000 events and 1 MiB; beyond that, or when the stream no longer holds them, an `event: reset` message says to read GET /events instead). A comment line arrives every HUB_EVENTS_STREAM_HEARTBEAT_SECONDS (15 s). The credential is checked again on every credential change and every 0.5 s, and the stream ends within a second once it is no longer valid. Employees never see user.*, webhook.* or api_key.* events, as in GET /events. Authenticate with the Authorization header (read the stream with fetch; a browser's EventSource cannot send it).
         */
        get: operations["streamEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/automations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List automations
         * @description Automations oldest first, optionally of one sector or only the active ones, a page at a time (follow the `Link` header).
         */
        get: operations["listAutomations"];
        put?: never;
        /**
         * Create an automation
         * @description Admins only. The slug (lower-case words joined by hyphens) is unique (409 when taken) and never changes; `sector_id` must exist (422). Each parameter becomes a required string of every job's context (`context_schema`). New automations are active, not in development mode, without a worker.
         */
        post: operations["createAutomation"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/automations/{automation_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get an automation
         * @description One automation with its parameters, the derived context_schema, its settings and its worker (null until one is registered). Deactivated automations stay readable.
         */
        get: operations["getAutomation"];
        /**
         * Replace an automation's editable fields
         * @description Admins only. Replaces name, description, sector_id, max_concurrent_jobs and parameters (all required); the slug never changes, and omitted retry settings (max_attempts, retry_backoff_seconds, timeout_seconds) stay as they were. A new max_concurrent_jobs governs dispatch at once (lowering it stops no running job). A PUT that changes nothing writes no event.
         */
        put: operations["replaceAutomation"];
        post?: never;
        /**
         * Deactivate an automation
         * @description Admins only; idempotent. The automation stays readable with is_active false; its queued jobs are cancelled, running ones may finish; new jobs and worker registrations are refused (409).
         */
        delete: operations["deactivateAutomation"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/automations/{automation_id}/stats": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Queue depth of an automation
         * @description Right now: due queued jobs, scheduled ones (delayed or in retry back-off), running ones against max_concurrent_jobs, the oldest due job, the last hour's completions and failures, and the worker's status.
         */
        get: operations["getAutomationStats"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/automations/{automation_id}/development-mode": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Enter development mode
         * @description Admins only; idempotent. Jobs are still accepted but stay queued: dispatch to the worker pauses until development mode ends.
         */
        post: operations["enterDevelopmentMode"];
        /**
         * Leave development mode
         * @description Admins only; idempotent. The jobs held meanwhile are released to the worker in claim order.
         */
        delete: operations["exitDevelopmentMode"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/automations/{automation_id}/worker": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Register the automation's worker
         * @description Admins only. An automation has one worker: a second registration, or one for an inactive automation, is 409. The answer holds the worker's api key, shown only here (the hub keeps a hash): the worker sends it as `X-Worker-Api-Key`. The worker's status is stopped until it first calls the hub.
         */
        post: operations["registerWorker"];
        /**
         * Unregister the worker
         * @description Admins only. Its key stops working at once and its running jobs go back to queued, without counting as failed attempts.
         */
        delete: operations["unregisterWorker"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/automations/{automation_id}/worker/api-key": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Rotate the worker's api key
         * @description Admins only. The new key is shown only in this answer. The old one stops working at once, or `overlap_seconds` later (at most 86400): long enough to update the worker's configuration without downtime. There is at most one previous key: a second rotation ends the first one's overlap at once. The body may be left out (no overlap). A running job is held by the key that claimed it or last heartbeated it: when a key stops working (at once without overlap, within a second of the overlap's end), the jobs it holds go back to queued (job.requeued with reason worker_key_rotated) and its signal streams get `event: cancel` with that reason before they end.
         */
        post: operations["rotateWorkerApiKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/jobs/claim": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Claim the next job (long-poll)
         * @description Hands the worker its automation's next available job in claim order, now running under a lease of HUB_JOB_LEASE_SECONDS, or 204 when none arrives within wait_seconds. Never beyond the automation's max_concurrent_jobs, and nothing while it is in development mode. The body may be left out (wait_seconds 0).
         */
        post: operations["claimJob"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/jobs/claim-batch": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Claim up to max_jobs jobs (long-poll)
         * @description As POST /jobs/claim for up to max_jobs jobs at once, in claim order and never beyond max_concurrent_jobs; 204 when none arrives within wait_seconds. For workers that want throughput.
         */
        post: operations["claimJobBatch"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/jobs/complete-batch": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Report several results
         * @description Each item is recorded or refused on its own, in input order: `completed`, `conflict` where a single complete would answer 409 (not running under this worker's lease, or another attempt), `not_found` for a job of another automation.
         */
        post: operations["completeJobBatch"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/jobs/heartbeat-batch": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Extend several leases
         * @description Each id is extended (`ok`, with its new lease_expires_at) or refused on its own (`conflict`, `not_found`), in input order.
         */
        post: operations["heartbeatJobBatch"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/jobs/{job_id}/heartbeat": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Extend a job's lease
         * @description Extends the lease of a job running under this worker to HUB_JOB_LEASE_SECONDS from now. Send one every third of the lease while working: a job whose lease lapses is queued again (or failed after its last attempt) and its later calls get 409. `attempt` (the job's attempts as claimed) also refuses a late call of an earlier attempt. The body may be left out.
         */
        post: operations["heartbeatJob"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/jobs/{job_id}/complete": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Report a job's result
         * @description Records the result (a JSON object) and completes the job, once: a job that is not running under this worker's current lease (cancelled, timed out, queued again, already reported) is refused with 409 and nothing changes.
         */
        post: operations["completeJob"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/jobs/{job_id}/complete-and-claim": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Report a job's result and claim the next job (long-poll)
         * @description POST /jobs/{job_id}/complete and POST /jobs/claim in one request, for a worker that takes its next job as soon as it finishes one. The result is recorded exactly as complete records it: a job not running under this worker's current lease is refused with 409 (404 for a job of another automation), nothing changes and nothing is claimed. Once it is recorded, the next job is claimed as POST /jobs/claim claims it (claim order, max_concurrent_jobs, the limits per key and rate limits), waiting up to wait_seconds; `next` is null when none came. A client that goes away while waiting claims nothing, but its result stays recorded; a claim that cannot run once the result is recorded (PostgreSQL unavailable) answers `next: null`, not an error.
         */
        post: operations["completeJobAndClaimNext"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/jobs/{job_id}/fail": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Report a job's failure
         * @description Records the error. With retryable true the job is queued again after the automation's back-off (retry_backoff_seconds × 2^(attempts−1), ±20 %) while attempts remain; otherwise, or after the last attempt, it is failed. Refused with 409 as complete is.
         */
        post: operations["failJob"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/jobs/{job_id}/dependencies": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read a held job's dependencies in full
         * @description The dependencies of a job running under this worker's lease, in depends_on order, each with its status, result and error, every result in full (a claim leaves results out past 1 MiB in all, marking them result_omitted). [] for a job without dependencies.
         */
        get: operations["getJobDependencies"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/jobs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List jobs, newest first
         * @description Jobs of every automation newest first (`automation_id` narrows to one), filtered by one or more statuses, creation and finish time, creator, error text and context values, a page at a time (follow the `Link` header). queue_position is null in lists: read the job for it. Filters combine (and). `scheduled=true` lists the queued jobs whose available_at is still ahead (PostgreSQL's clock), `priority_min` the jobs of at least that priority, `schedule_id` the jobs a schedule created, `retry_of` the retries of a job. `context[<name>]=<value>` (also written `context.<name>=<value>`; up to 5) keeps the jobs whose context has that top-level key with that string value: a sixth is a 422 on ["query"], an empty or over-long name a 422 at ["query","context.<name>"]. A context value matching up to 10,000 jobs is found by an index, with or without automation_id; broader values and error_contains are best effort.
         */
        get: operations["listJobs"];
        put?: never;
        /**
         * Create a job
         * @description Queues a job of an automation; its context is checked against the automation's context_schema (422 under body.context), and a deactivated automation refuses it (409). With an Idempotency-Key, a repeat by the same user within 24 h answers the first job's id with 200 and creates nothing: safe to retry after a timeout or a 503. `run_at` (RFC 3339, at most 365 days ahead) holds the job back until then: it is queued with `waiting_reason` `scheduled` and handed out within about a second after `available_at` (the later of `run_at` and the creation, PostgreSQL's clock). `priority` (−100 to 100, default 0) orders the due jobs of an automation: higher first, then earlier `available_at`, then creation order (a batch in input order).
         */
        post: operations["createJob"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/jobs/batch": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create many jobs at once, all or none
         * @description Up to 500 jobs, all or none: an invalid item is a 422 at body.jobs[i] (every problem at once) and a deactivated automation a 409, and then nothing is created. The ids come in input order; an Idempotency-Key covers the whole batch. Each item is checked as a POST /jobs body (its own run_at and priority). `run_at` (RFC 3339, at most 365 days ahead) holds the job back until then: it is queued with `waiting_reason` `scheduled` and handed out within about a second after `available_at` (the later of `run_at` and the creation, PostgreSQL's clock). `priority` (−100 to 100, default 0) orders the due jobs of an automation: higher first, then earlier `available_at`, then creation order (a batch in input order).
         */
        post: operations["createJobBatch"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/jobs/bulk-cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Cancel queued or running jobs by filter
         * @description Admins only. Selects up to `limit` queued or running jobs by automation, status and creation time (at least one filter), oldest first, and cancels them in batches of 500, each its own transaction; jobs that finished meanwhile are skipped. `dry_run` counts and lists them and changes nothing.
         */
        post: operations["bulkCancelJobs"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/jobs/bulk-retry": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Retry failed or cancelled jobs by filter
         * @description Admins only. Selects up to `limit` failed or cancelled jobs by filters (at least one) and creates a new queued job for each, with the same automation and context and retry_of set; jobs whose status changed meanwhile, or whose automation is deactivated, are skipped. `dry_run` only counts and lists.
         */
        post: operations["bulkRetryJobs"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/jobs/{job_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a job
         * @description The job with its status, context, result or error and attempts; while it is queued, why it waits (waiting_reason) and its place in line (queue_position).
         */
        get: operations["getJob"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/jobs/{job_id}/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Cancel a job
         * @description Cancels a queued or running job; a finished one answers 409. A running job's slot frees at once and its worker's later calls get 409. Employees may cancel only the jobs they created.
         */
        post: operations["cancelJob"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/jobs/{job_id}/reschedule": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Move a queued job to another time or priority
         * @description Give `run_at` (a new time, at most 365 days ahead; `null` = now), `priority` (−100 to 100), or both; what is omitted stays as it is. A new `run_at` sets `available_at` to the later of it and now (PostgreSQL's clock), so the job keeps no earlier place in line. The next claims follow the new order at once. Writes `job.rescheduled` `{automation_id, run_at, priority, available_at}` (the values after the change). Admins reschedule any job, employees the jobs they created.
         */
        post: operations["rescheduleJob"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/jobs/{job_id}/retry": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Retry a failed or cancelled job, optionally with a new context
         * @description Creates a new queued job with the same automation and priority and retry_of = this job, with the old context, or with `context` when the body gives one (checked against the automation's parameters as POST /jobs checks it). Its job.created event carries retry_of, and context_changed: true whenever the body has a context, even the old one. Any other status, or a deactivated automation, answers 409. Employees may retry only the jobs they created. Order: 404, 403, the body's shape (422), 409, then a context that does not fit the parameters (422). A job with depends_on keeps them: its retry waits for them as they are now. With with_dependents: true, one transaction also retries every job cancelled because of this one (reason dependency_failed, at any depth, not retried yet), each depending on the retries of the jobs it depended on; the answer lists them all in `ids`.
         */
        post: operations["retryJob"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/jobs/{job_id}/approve": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Approve a job awaiting approval
         * @description The job may run: it becomes due now (available_at = the later of its own and now), or, with dependencies left, once they finish. Writes job.approved {automation_id, comment} with the decider as actor. An admin or a user in the automation's approver_ids (any role, with a login token or an api key) decides; never the job's own creator (403). Order: 404, 403, 422, 409.
         */
        post: operations["approveJob"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/jobs/{job_id}/reject": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Reject a job awaiting approval
         * @description The job never runs: it becomes cancelled (job.cancelled {automation_id, reason: rejected}), with job.rejected {automation_id, comment} by the decider. A comment is required. An admin or a user in the automation's approver_ids (any role, with a login token or an api key) decides; never the job's own creator (403). Order: 404, 403, 422, 409.
         */
        post: operations["rejectJob"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/approvals": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The approvals the caller may decide
         * @description Queued jobs whose approval is pending and that the caller may decide (an admin: every one; anyone else: those of automations listing it in approver_ids), never the caller's own, oldest first, a page at a time (follow the `Link` header).
         */
        get: operations["listApprovals"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/jobs/{job_id}/logs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List a job's log lines
         * @description The job's log lines in `seq` order (the order the hub accepted them, over all attempts; never by `ts`, which is shown as the worker sent it), a page at a time (follow the `Link` header). `attempt` keeps one attempt's lines, `level` that level and those above. Lines go with their job (retention).
         */
        get: operations["listJobLogs"];
        put?: never;
        /**
         * Send log lines of a running job
         * @description Stores up to 1000 lines (each 1–8192 characters) of a job running under this worker's lease, in order, each with the next `seq` of the job. A job's stored messages hold at most HUB_JOB_LOG_MAX_BYTES (1 MiB) of UTF-8 over all its attempts: the line that would pass it, the rest of the request and every later line are dropped, one `warn` line "log limit of <N> bytes reached: later lines dropped" is stored once, and `truncated` is true from then on. A job not running under this worker's lease (or not in `attempt`) is 409 and nothing is stored. Log lines write no event.
         */
        post: operations["appendJobLogs"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/jobs/{job_id}/logs/stream": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Follow a job's log live (server-sent events)
         * @description The job's stored lines after `Last-Event-ID` (a seq), or all of them; then the job's progress once (`event: progress`), when it has one; then new lines within a second of being accepted, `event: progress` on each change (`null` after the job is queued again), and `event: end` `{status}` within a second of the job finishing, after which the stream closes. A line is a message with `id: <seq>` and `data` a JobLogLine; `progress` carries no id, `end` carries `id: end`, so a reconnecting EventSource sends `Last-Event-ID: end` and gets 204, on which it stops. Resuming with `Last-Event-ID` is always exact (no gap, no repeat, never a reset). `level` keeps that level and above. Counts against the caller's 5 open streams (CONTRACT §6.15); the credential is checked again as on GET /events/stream. Authenticate with the Authorization header (read the stream with fetch; a browser's EventSource cannot send it).
         */
        get: operations["streamJobLogs"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/automations/{automation_id}/schedules": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List an automation's schedules
         * @description The automation's schedules (not deleted), oldest first, a page at a time; `enabled=` filters. 404 for an unknown automation.
         */
        get: operations["listAutomationSchedules"];
        put?: never;
        /**
         * Create a schedule: a recurring job of this automation (admins)
         * @description At each fire time the hub makes exactly one job, whatever the number of dispatchers, within 5 s of that time: as POST /jobs would, with the schedule's context and priority, created_by null, and schedule_id and fire_time set on the job and in its job.created event. A fire not made within 5 s (no dispatcher running, database down) is missed; on recovery only the latest missed fire is made.
         */
        post: operations["createSchedule"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/schedules": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List schedules across automations
         * @description Every schedule (not deleted), oldest first, a page at a time; `automation_id=` and `enabled=` filter. `next_run_at` is when it fires next (null when disabled).
         */
        get: operations["listSchedules"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/schedules/preview": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Preview the next fire times of a cron expression
         * @description The next `count` (1–20, default 5) fire times of `cron` read in `timezone`, as a schedule with them would fire from now (PostgreSQL's clock), fewer when fewer fall within 4 years. Checked as creating a schedule checks them, with the problems at ["query", <name>]: an expression the hub does not accept, a seconds field where HUB_SCHEDULES_ALLOW_SECONDS is off, no fire time within 4 years, or a time zone Intl.DateTimeFormat does not know. Any signed-in user; nothing is stored.
         */
        get: operations["previewSchedule"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/schedules/{schedule_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a schedule
         * @description One schedule with its next fire (`next_run_at`) and its last one (`last_run_at`, `last_job_id`).
         */
        get: operations["getSchedule"];
        /**
         * Replace a schedule's settings (admins; an omitted optional field takes its default)
         * @description Replaces cron, timezone, context, priority, enabled, overlap, key and description. Enabling a schedule, or changing its expression or time zone, starts it from the next fire time after now (nothing is caught up); other changes keep its next fire time. A PUT that changes nothing records no event.
         */
        put: operations["replaceSchedule"];
        post?: never;
        /**
         * Delete a schedule (admins): it makes no more jobs; the jobs it made stay, queued ones included
         * @description The schedule makes no more jobs and is gone for every read and PUT (404); the jobs it made keep their schedule_id. Writes `schedule.deleted`.
         */
        delete: operations["deleteSchedule"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/maintenance-windows": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List maintenance windows
         * @description The windows (not deleted) the caller reaches — those of its automations, of their sectors and those over every automation — oldest first, a page at a time; `automation_id=`, `sector_id=` and `active=` filter.
         */
        get: operations["listMaintenanceWindows"];
        put?: never;
        /**
         * Create a maintenance window: no job of its scope starts while it is in effect (admins)
         * @description Exactly one form: starts_at + ends_at (one-off; starts_at may be past, ends_at after it, in the future and at most 31 days after it, else 422 at ["body","ends_at"]) or cron + duration_seconds (60–604800) + timezone (default "UTC"; cron and timezone as a schedule's). At most one of automation_id and sector_id (neither: every automation). Either broken → 422 value_error at ["body"]. An unknown automation or sector → 422 at its field. While a window is in effect no job of its scope starts: no claim hands one out, whatever the number of processes (PostgreSQL's clock). Running jobs go on; jobs are accepted and schedules fire; the held jobs read waiting_reason maintenance_window and GET /jobs/{job_id} shows resumes_at. With drain, a job also does not start when a window of its scope begins within its automation's timeout_seconds. At the end the held jobs start within 1 s in claim order, every limit held. Events maintenance_window.started and .ended {starts_at, ends_at}, one of each per occurrence within 5 s, whatever the number of dispatchers. A window created already in effect writes maintenance_window.started at once.
         */
        post: operations["createMaintenanceWindow"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/maintenance-windows/{window_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a maintenance window
         * @description One window with whether it is in effect now (`active`), its next start and the end of the occurrence in effect or next.
         */
        get: operations["getMaintenanceWindow"];
        /**
         * Replace a maintenance window's settings (admins; an omitted optional field takes its default)
         * @description Exactly one form: starts_at + ends_at (one-off; starts_at may be past, ends_at after it, in the future and at most 31 days after it, else 422 at ["body","ends_at"]) or cron + duration_seconds (60–604800) + timezone (default "UTC"; cron and timezone as a schedule's). At most one of automation_id and sector_id (neither: every automation). Either broken → 422 value_error at ["body"]. An unknown automation or sector → 422 at its field. An occurrence in effect that the new settings no longer hold now ends at once (maintenance_window.ended with the actual end; held jobs start within 1 s); one they still hold keeps its start and takes the new end. A PUT that changes nothing records no event.
         */
        put: operations["replaceMaintenanceWindow"];
        post?: never;
        /**
         * Delete a maintenance window (admins): an occurrence in effect ends at once
         * @description The window holds no more jobs and is gone for every read (404). One in effect ends now: maintenance_window.ended with that end; held jobs start within 1 s.
         */
        delete: operations["deleteMaintenanceWindow"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/webhooks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List webhook subscriptions
         * @description Every subscription not deleted, active or disabled; never a secret.
         */
        get: operations["listWebhooks"];
        put?: never;
        /**
         * Subscribe an endpoint to events
         * @description Deliveries are signed per Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature). The secret is shown in this answer only. A URL that is not https://, or whose host resolves to a loopback, private or link-local address, is a 422 on ["body","url"] (unless the hub allows them for development).
         */
        post: operations["createWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/webhooks/{webhook_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a webhook subscription
         * @description One subscription: its URL, event types, status and failure streak; never its secret.
         */
        get: operations["getWebhook"];
        put?: never;
        post?: never;
        /**
         * Delete a webhook subscription
         * @description Nothing more is delivered to it; its pending deliveries end failed. Writes webhook.deleted.
         */
        delete: operations["deleteWebhook"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/webhooks/{webhook_id}/secret": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Rotate a webhook's signing secret
         * @description Answers the new secret, once. For 24 h every delivery carries two signatures (new and replaced secret, space-separated in webhook-signature), so the receiver can switch without losing a delivery.
         */
        post: operations["rotateWebhookSecret"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/webhooks/{webhook_id}/deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A webhook's delivery log
         * @description Deliveries to this subscription, newest first, a page at a time: status (pending, delivered, failed), attempts, the last status code or error, and when the next attempt is due.
         */
        get: operations["listWebhookDeliveries"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/webhooks/{webhook_id}/deliveries/{delivery_id}/redeliver": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Deliver again
         * @description The delivery becomes pending and due now, its retry schedule starting over (attempts keep counting); it still waits for earlier pending deliveries of the same aggregate.
         */
        post: operations["redeliverWebhookDelivery"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/alert-rules": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List alert rules
         * @description Every rule, oldest first, a page at a time; `automation_id=` and `kind=` filter. An employee sees the rules for every automation and those of automations it reaches.
         */
        get: operations["listAlertRules"];
        put?: never;
        /**
         * Create an alert rule (admins)
         * @description The dispatchers evaluate every rule at least every 10 s, each evaluation exactly once whatever their number. An alert (a rule and one automation) fires once its condition held at every evaluation for for_seconds since the first that found it (alert.firing), and resolves at the first evaluation that no longer finds it, when its rule is changed or deleted, or its automation deactivated (alert.resolved). Jobs held by dependencies, approvals and maintenance windows are not due queued: a planned window pages nobody. The threshold is required, in the kind's unit and range (null for worker_offline), else 422 at ["body","threshold"]; an unknown automation_id is 422 at ["body","automation_id"].
         */
        post: operations["createAlertRule"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/alert-rules/{rule_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get an alert rule
         * @description One rule.
         */
        get: operations["getAlertRule"];
        /**
         * Replace an alert rule's settings (admins; an omitted optional field takes its default)
         * @description A change resolves the rule's firing alerts (alert.resolved each); they fire again when the changed rule finds them. A PUT that changes nothing changes nothing.
         */
        put: operations["replaceAlertRule"];
        post?: never;
        /**
         * Delete an alert rule (admins)
         * @description Its firing alerts resolve (alert.resolved each); their history stays in GET /alerts?state=resolved.
         */
        delete: operations["deleteAlertRule"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/alerts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The alerts firing now, or their history
         * @description state=firing (the default): the alerts firing now, oldest first by when they fired, each with the latest evaluation's value and message; state=resolved: the resolved ones, newest first, with resolved_at. Within the caller's reach (the automation the alert is about).
         */
        get: operations["listAlerts"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/workers/me/signals": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Hear at once when a running job is taken from this worker (server-sent events)
         * @description While open, `event: cancel` `{job_id, attempt, reason}` arrives within a second of the commit that took a job this worker runs from it: `cancelled_by_user` (a cancel, single or bulk), `timeout`, `lease_expired`, `worker_unregistered` or `worker_key_rotated` (both sent before the stream ends). Deactivating an automation sends nothing. Signals carry no `id:` and are never replayed: a worker that was not listening learns it from the 409 `{detail, status}` of its next call. Opening the stream marks the worker seen; keeping it open does not. At most HUB_WORKER_MAX_STREAMS (64) streams per worker key over every API process; on a 429, work on without signals and retry after Retry-After.
         */
        get: operations["streamWorkerSignals"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/workers/me/offline": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Say this worker is stopping
         * @description For a graceful stop, once drained (close the signals stream first). When none of this worker's signals streams is open on any API process, the worker becomes `stopped` at once (`worker.status_changed`, only when it was `running`); otherwise it stays `running`. Running jobs are left alone. Unlike every other worker call, this one does not mark the worker seen.
         */
        post: operations["markWorkerOffline"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/openapi.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * This document
         * @description The OpenAPI 3.1.0 description of every endpoint, generated from the schemas that validate requests. `/docs` renders it.
         */
        get: operations["getOpenApiDocument"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/metrics": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Prometheus metrics
         * @description Request durations, job outcomes and per-automation queue gauges in the Prometheus text format. Open unless HUB_METRICS_TOKEN is set; keep the port internal.
         */
        get: operations["getMetrics"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        AccessToken: {
            access_token: string;
            /** @constant */
            token_type: "bearer";
            /** @description Seconds until the token expires */
            expires_in: number;
        };
        /** @description A rule and one automation: firing now, or resolved */
        Alert: {
            /** Format: uuid */
            rule_id: string;
            /** Format: uuid */
            automation_id: string;
            /** @enum {string} */
            kind: "queue_age" | "queue_depth" | "failure_rate" | "worker_offline" | "job_duration";
            /** @description By kind: seconds, jobs, or a share 0–1 (the latest evaluation's; for a resolved alert, what it last fired with) */
            value: number;
            threshold: number | null;
            message: string;
            /**
             * Format: date-time
             * @description When it started firing
             */
            since: string;
            /**
             * Format: date-time
             * @description state=resolved only: when it resolved
             */
            resolved_at?: string;
        };
        /** @description alert.firing */
        AlertFiringEvent: {
            /** Format: uuid */
            id: string;
            /**
             * Format: uuid
             * @description The alert_rule's id
             */
            aggregate_id: string;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            event_type: "alert.firing";
            /** @description The user who caused it; null for worker and system actions */
            actor_id: string | null;
            payload: components["schemas"]["AlertFiringPayload"];
            /** @description When the event relay published it to the Redis stream; null until then */
            dispatched_at: string | null;
            /** Format: date-time */
            created_at: string;
        };
        /** @description The payload of alert.firing */
        AlertFiringPayload: {
            /** Format: uuid */
            rule_id: string;
            /** Format: uuid */
            automation_id: string;
            /** @enum {string} */
            kind: "queue_age" | "queue_depth" | "failure_rate" | "worker_offline" | "job_duration";
            /** @description By kind: seconds (queue_age, job_duration, worker_offline), jobs (queue_depth), a share 0–1 (failure_rate) */
            value: number;
            /** @description The rule's threshold in the kind's unit; null for worker_offline */
            threshold: number | null;
            /** @description A sentence naming the automation, the value and the threshold in units a person reads */
            message: string;
        };
        /** @description alert.resolved */
        AlertResolvedEvent: {
            /** Format: uuid */
            id: string;
            /**
             * Format: uuid
             * @description The alert_rule's id
             */
            aggregate_id: string;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            event_type: "alert.resolved";
            /** @description The user who caused it; null for worker and system actions */
            actor_id: string | null;
            payload: components["schemas"]["AlertResolvedPayload"];
            /** @description When the event relay published it to the Redis stream; null until then */
            dispatched_at: string | null;
            /** Format: date-time */
            created_at: string;
        };
        /** @description The payload of alert.resolved */
        AlertResolvedPayload: {
            /** Format: uuid */
            rule_id: string;
            /** Format: uuid */
            automation_id: string;
            /** @enum {string} */
            kind: "queue_age" | "queue_depth" | "failure_rate" | "worker_offline" | "job_duration";
            /** @description By kind: seconds (queue_age, job_duration, worker_offline), jobs (queue_depth), a share 0–1 (failure_rate) */
            value: number;
            /** @description The rule's threshold in the kind's unit; null for worker_offline */
            threshold: number | null;
            /** @description A sentence naming the automation, the value and the threshold in units a person reads */
            message: string;
        };
        /** @description A condition the hub evaluates at least every 10 s, per automation it covers */
        AlertRule: {
            /** Format: uuid */
            id: string;
            automation_id: string | null;
            /** @enum {string} */
            kind: "queue_age" | "queue_depth" | "failure_rate" | "worker_offline" | "job_duration";
            threshold: number | null;
            for_seconds: number;
            window_seconds: number;
            min_jobs: number;
            description: string;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
        };
        /**
         * @example {
         *       "automation_id": "9b2e6c1d-7a4f-4e0b-8c3d-2f1a5e6b7c8d",
         *       "kind": "queue_age",
         *       "threshold": 600,
         *       "for_seconds": 60,
         *       "description": "Invoices wait"
         *     }
         */
        AlertRuleRequest: {
            /** @description The automation the rule watches; null (the default): every automation, each on its own. Default: `null`. */
            automation_id?: string | null;
            /**
             * @description queue_age: the oldest due queued job waited longer than threshold seconds; queue_depth: at least threshold due queued jobs; failure_rate: at least min_jobs jobs finished in the last window_seconds and the share failed is at least threshold; worker_offline: due jobs wait while the worker is stopped or none is registered; job_duration: a job has run longer than threshold seconds
             * @enum {string}
             */
            kind: "queue_age" | "queue_depth" | "failure_rate" | "worker_offline" | "job_duration";
            /** @description In the kind's unit: seconds 1–2,592,000 (queue_age, job_duration), jobs 1–1,000,000 (queue_depth), a share above 0 and at most 1 (failure_rate); null for worker_offline */
            threshold?: number | null;
            /** @description How long the condition must hold at every evaluation before the alert fires (0–86,400, default 0). Default: `0`. */
            for_seconds?: number;
            /** @description failure_rate only: the window of finished jobs (60–86,400, default 900). Default: `900`. */
            window_seconds?: number;
            /** @description failure_rate only: fewer jobs finished in the window never fire (1–10,000, default 10). Default: `10`. */
            min_jobs?: number;
            /** @description Default: `""`. */
            description?: string;
        };
        /** @description A user's api key as listed: never the key, only its prefix */
        ApiKey: {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            user_id: string;
            name: string;
            /** @description The first 8 characters after "hub_" */
            prefix: string;
            /** Format: date-time */
            created_at: string;
            /**
             * Format: date-time
             * @description Expired keys stay listed (and refused) until deleted
             */
            expires_at: string;
            /** @description Written by the first use after 60 s or more, so up to that far behind */
            last_used_at: string | null;
            /** @description The automations the key reaches; null: everything its user reaches */
            automation_ids: string[] | null;
            read_only: boolean;
            /** @description "employee": an admin's key acting as an employee */
            role: "employee" | null;
        };
        /** @description api_key.created (admins only) */
        ApiKeyCreatedEvent: {
            /** Format: uuid */
            id: string;
            /**
             * Format: uuid
             * @description The api_key's id
             */
            aggregate_id: string;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            event_type: "api_key.created";
            /** @description The user who caused it; null for worker and system actions */
            actor_id: string | null;
            payload: components["schemas"]["ApiKeyCreatedPayload"];
            /** @description When the event relay published it to the Redis stream; null until then */
            dispatched_at: string | null;
            /** Format: date-time */
            created_at: string;
        };
        /** @description The payload of api_key.created */
        ApiKeyCreatedPayload: {
            /** Format: uuid */
            user_id: string;
            name: string;
            prefix: string;
        };
        /** @description api_key.revoked (admins only) */
        ApiKeyRevokedEvent: {
            /** Format: uuid */
            id: string;
            /**
             * Format: uuid
             * @description The api_key's id
             */
            aggregate_id: string;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            event_type: "api_key.revoked";
            /** @description The user who caused it; null for worker and system actions */
            actor_id: string | null;
            payload: components["schemas"]["ApiKeyRevokedPayload"];
            /** @description When the event relay published it to the Redis stream; null until then */
            dispatched_at: string | null;
            /** Format: date-time */
            created_at: string;
        };
        /** @description The payload of api_key.revoked */
        ApiKeyRevokedPayload: {
            /** Format: uuid */
            user_id: string;
            name: string;
            prefix: string;
        };
        AppendJobLogsRequest: {
            /** @description 1–1000 lines, stored in this order */
            lines: {
                /** @description 1–8192 characters */
                message: string;
                /**
                 * @description Default: `"info"`.
                 * @enum {string}
                 */
                level?: "debug" | "info" | "warn" | "error";
                /**
                 * Format: date-time
                 * @description When the worker wrote the line (RFC 3339); default the hub's time of acceptance
                 */
                ts?: string;
            }[];
            /** @description The job's `attempts` as claimed; when given, a call for another attempt is refused with 409 */
            attempt?: number;
        };
        AppendJobLogsResult: {
            /** @description The request's lines stored (never the limit's marker line) */
            accepted: number;
            /** @description True once a line of this job was dropped at HUB_JOB_LOG_MAX_BYTES, in this answer and every later one */
            truncated: boolean;
        };
        /** @description A person's decision before the job may run (CONTRACT §6.17) */
        Approval: {
            /**
             * @description pending until decided; then approved, rejected (POST /jobs/{job_id}/reject), expired (approval_timeout_seconds passed) or withdrawn (the job cancelled otherwise while pending)
             * @enum {string}
             */
            status: "pending" | "approved" | "rejected" | "expired" | "withdrawn";
            /**
             * Format: date-time
             * @description When the approval was asked for: the job's creation
             */
            requested_at: string;
            /** @description When a pending approval expires and the job is cancelled; null: never */
            expires_at: string | null;
            /** @description Who approved or rejected it; null otherwise */
            decided_by: string | null;
            /** @description When it was approved or rejected; null otherwise */
            decided_at: string | null;
            /** @description The decider's comment; null without one */
            comment: string | null;
        };
        /** @description A job whose approval is pending, as GET /approvals lists it */
        ApprovalRequest: {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            automation_id: string;
            /** @enum {string} */
            status: "queued" | "running" | "completed" | "failed" | "cancelled";
            context: {
                [key: string]: unknown;
            };
            result: {
                [key: string]: unknown;
            } | null;
            error: string | null;
            attempts: number;
            created_by: string | null;
            /** Format: date-time */
            created_at: string;
            started_at: string | null;
            finished_at: string | null;
            lease_expires_at: string | null;
            /** @description While queued, why the job is not running yet, the first that applies: dependencies (a job of depends_on has not finished), awaiting_approval (its approval is pending: POST /jobs/{job_id}/approve), development_mode (dispatch paused), maintenance_window (a maintenance window of its automation, its sector or the whole hub is in effect, or with drain begins within the automation's timeout_seconds; see resumes_at), scheduled (available_at ahead, never attempted), scheduled_retry (available_at ahead after an attempt: back-off), no_worker (none registered), worker_offline (registered but not seen within HUB_WORKER_TTL_SECONDS), rate_limited (the automation's rate_limit window, or its key value's with per_key, is full; GET /jobs/{job_id} then shows as available_at when it next allows a start), concurrency_limit (the running jobs, plus the due jobs ahead of it, fill max_concurrent_jobs), key_concurrency_limit (its concurrency_key value runs max_concurrent_per_key jobs, or the due jobs of that value ahead of it take the rest), next_in_line (a slot is free for it: one of the next claims hands it out). Null when not queued. */
            waiting_reason: ("dependencies" | "awaiting_approval" | "development_mode" | "maintenance_window" | "scheduled" | "scheduled_retry" | "no_worker" | "worker_offline" | "rate_limited" | "concurrency_limit" | "key_concurrency_limit" | "next_in_line") | null;
            /** @description In GET /jobs/{job_id}: 1 + the automation's due queued jobs ahead of it in claim order (priority desc, available_at, creation); with a concurrency_key, only those of its key value (it does not predict the order across values, which fair sharing decides). Null when not queued, while its own available_at is ahead, and in lists. */
            queue_position: number | null;
            /** @description In GET /jobs/{job_id} of a queued job that maintenance windows hold: when they end (the latest end among those in effect, overlapping ones followed to the last); null otherwise and in lists */
            resumes_at: string | null;
            /**
             * Format: date-time
             * @description When the job may be handed out: the later of run_at and its creation (or of a reschedule), later while it waits out a retry back-off; PostgreSQL's clock. In GET /jobs/{job_id} of a rate_limited job: when the rate limit's window next allows a start (computed when read; lists show the stored value)
             */
            available_at: string;
            /** @description The failed or cancelled job this one retries (POST /jobs/{job_id}/retry); null otherwise */
            retry_of: string | null;
            /** @description The time the job was asked to run at, as sent (POST /jobs or a reschedule); null when none was given */
            run_at: string | null;
            /** @description -100 to 100; among due jobs, higher priorities are handed out first */
            priority: number;
            /** @description The schedule whose fire created the job; null for jobs created by a request */
            schedule_id: string | null;
            /** @description The schedule's fire time this job was created for; null otherwise */
            fire_time: string | null;
            /** @description The worker's last reported progress (a heartbeat's `progress`); null until reported, and again once the job is queued again */
            progress: components["schemas"]["JobProgress"] | null;
            /** @description The job's approval (CONTRACT §6.17); null for a job that needs none */
            approval: components["schemas"]["Approval"] | null;
            /** @description The jobs this one waits for, in the order given (batch indexes resolved); [] for none */
            depends_on: string[];
            /**
             * @description What a failed or cancelled dependency does to this job
             * @enum {string}
             */
            on_dependency_failure: "cancel" | "run";
            /** @description How many of depends_on have not finished yet; while above 0 the job is queued with waiting_reason dependencies and never handed out */
            pending_dependencies: number;
            /** @description The e-mail of the job's creator, so a decider who may not read users knows who asks; null for a job the hub made (a schedule) */
            created_by_email: string | null;
        };
        /** @default {} */
        ApproveJobRequest: {
            /** @description Why it may run (at most 1000 characters); recorded in the approval and job.approved */
            comment?: string;
        };
        /** @description What jobs run for: its parameters, limits, retry settings and worker */
        Automation: {
            /** Format: uuid */
            id: string;
            name: string;
            slug: string;
            sector: {
                /** Format: uuid */
                id: string;
                name: string;
                color: string;
            };
            parameters: components["schemas"]["AutomationParameter"][];
            /** @description JSON Schema of a job's context, derived from the parameters */
            context_schema: {
                [key: string]: unknown;
            };
            description: string;
            max_concurrent_jobs: number;
            /** @description Attempts a job gets before it ends `failed`; defaults to the hub's HUB_JOB_MAX_ATTEMPTS */
            max_attempts: number;
            /** @description Back-off base: after failed attempt n a job waits this × 2^(n−1) s (±20 % jitter, at most 1 h); default 10 */
            retry_backoff_seconds: number;
            /** @description A job running longer than this (heartbeats or not) fails with error `timeout`, retryably; null = no limit */
            timeout_seconds: number | null;
            /** @description The parameter whose value in a job's context groups jobs for max_concurrent_per_key, per-key rate limits and fair sharing; null = none */
            concurrency_key: string | null;
            /** @description Jobs of one concurrency_key value running at once; required while a key is set, null without one */
            max_concurrent_per_key: number | null;
            /** @description At most `count` job starts (retries too) in any `period_seconds`, for the automation or, with per_key, for each concurrency_key value; null = none */
            rate_limit: components["schemas"]["RateLimit"] | null;
            /** @description Every job of the automation waits for an approval (by an admin or one of approver_ids) before it may run */
            requires_approval: boolean;
            /** @description Who may decide the automation's approvals besides admins */
            approver_ids: string[];
            /** @description A pending approval older than this expires: the job is cancelled with reason approval_expired; null = never */
            approval_timeout_seconds: number | null;
            is_active: boolean;
            is_development: boolean;
            /** @description The registered worker; null until one is registered */
            worker: components["schemas"]["Worker"] | null;
            /** Format: date-time */
            created_at: string;
        };
        /** @description automation.created */
        AutomationCreatedEvent: {
            /** Format: uuid */
            id: string;
            /**
             * Format: uuid
             * @description The automation's id
             */
            aggregate_id: string;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            event_type: "automation.created";
            /** @description The user who caused it; null for worker and system actions */
            actor_id: string | null;
            payload: components["schemas"]["AutomationCreatedPayload"];
            /** @description When the event relay published it to the Redis stream; null until then */
            dispatched_at: string | null;
            /** Format: date-time */
            created_at: string;
        };
        /** @description The payload of automation.created */
        AutomationCreatedPayload: {
            name?: string;
            slug?: string;
            /** Format: uuid */
            sector_id?: string;
            description?: string;
            parameters?: {
                name: string;
                description: string;
            }[];
            max_concurrent_jobs?: number;
            max_attempts?: number | null;
            retry_backoff_seconds?: number;
            timeout_seconds?: number | null;
            concurrency_key?: string | null;
            max_concurrent_per_key?: number | null;
            rate_limit?: {
                count: number;
                period_seconds: number;
                per_key: boolean;
            } | null;
            requires_approval?: boolean;
            approver_ids?: string[];
            approval_timeout_seconds?: number | null;
        };
        /** @description automation.deactivated */
        AutomationDeactivatedEvent: {
            /** Format: uuid */
            id: string;
            /**
             * Format: uuid
             * @description The automation's id
             */
            aggregate_id: string;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            event_type: "automation.deactivated";
            /** @description The user who caused it; null for worker and system actions */
            actor_id: string | null;
            payload: components["schemas"]["AutomationDeactivatedPayload"];
            /** @description When the event relay published it to the Redis stream; null until then */
            dispatched_at: string | null;
            /** Format: date-time */
            created_at: string;
        };
        /** @description The payload of automation.deactivated */
        AutomationDeactivatedPayload: Record<string, never>;
        /** @description automation.development_mode_entered */
        AutomationDevelopmentModeEnteredEvent: {
            /** Format: uuid */
            id: string;
            /**
             * Format: uuid
             * @description The automation's id
             */
            aggregate_id: string;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            event_type: "automation.development_mode_entered";
            /** @description The user who caused it; null for worker and system actions */
            actor_id: string | null;
            payload: components["schemas"]["AutomationDevelopmentModeEnteredPayload"];
            /** @description When the event relay published it to the Redis stream; null until then */
            dispatched_at: string | null;
            /** Format: date-time */
            created_at: string;
        };
        /** @description The payload of automation.development_mode_entered */
        AutomationDevelopmentModeEnteredPayload: Record<string, never>;
        /** @description automation.development_mode_exited */
        AutomationDevelopmentModeExitedEvent: {
            /** Format: uuid */
            id: string;
            /**
             * Format: uuid
             * @description The automation's id
             */
            aggregate_id: string;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            event_type: "automation.development_mode_exited";
            /** @description The user who caused it; null for worker and system actions */
            actor_id: string | null;
            payload: components["schemas"]["AutomationDevelopmentModeExitedPayload"];
            /** @description When the event relay published it to the Redis stream; null until then */
            dispatched_at: string | null;
            /** Format: date-time */
            created_at: string;
        };
        /** @description The payload of automation.development_mode_exited */
        AutomationDevelopmentModeExitedPayload: Record<string, never>;
        AutomationParameter: {
            name: string;
            /** @constant */
            type: "text";
            description: string;
        };
        AutomationStats: {
            /** Format: uuid */
            automation_id: string;
            /** @description Queued jobs whose available_at has come (claimable as soon as a slot and a worker are there) */
            queued: number;
            running: number;
            /** @description Queued jobs whose available_at is still ahead: delayed (run_at) or in retry back-off */
            scheduled: number;
            max_concurrent_jobs: number;
            /** @description The earliest available_at among the due queued jobs (a job scheduled for later does not age before then); null when none */
            oldest_queued_at: string | null;
            /** @description Jobs that completed (finished_at) within the last hour */
            completed_last_hour: number;
            /** @description Jobs that failed for good (finished_at) within the last hour */
            failed_last_hour: number;
            /** @description The registered worker's status; null when none is registered */
            worker_status: ("stopped" | "running") | null;
            /** @description When the worker last called the hub; null when never, or no worker */
            worker_last_seen_at: string | null;
            /** @description Up to 100 concurrency_key values with the most due queued jobs (ties by value); [] without a key */
            by_key: components["schemas"]["KeyQueueDepth"][];
            /** @description Starts the automation's rate limit still allows now; null without one or when it is per key */
            rate_limit_remaining: number | null;
            /** @description Queued jobs waiting for their dependencies (waiting_reason dependencies, §6.16): never in queued or oldest_queued_at */
            blocked: number;
            /** @description While maintenance windows hold the automation's jobs (in effect, or with drain beginning within timeout_seconds): when they end; null otherwise */
            maintenance_until: string | null;
            /** @description Queued jobs awaiting an approval (waiting_reason awaiting_approval, §6.17): never in queued or oldest_queued_at; each held job counts once */
            awaiting_approval: number;
        };
        /** @description automation.updated */
        AutomationUpdatedEvent: {
            /** Format: uuid */
            id: string;
            /**
             * Format: uuid
             * @description The automation's id
             */
            aggregate_id: string;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            event_type: "automation.updated";
            /** @description The user who caused it; null for worker and system actions */
            actor_id: string | null;
            payload: components["schemas"]["AutomationUpdatedPayload"];
            /** @description When the event relay published it to the Redis stream; null until then */
            dispatched_at: string | null;
            /** Format: date-time */
            created_at: string;
        };
        /** @description The payload of automation.updated */
        AutomationUpdatedPayload: {
            name?: string;
            slug?: string;
            /** Format: uuid */
            sector_id?: string;
            description?: string;
            parameters?: {
                name: string;
                description: string;
            }[];
            max_concurrent_jobs?: number;
            max_attempts?: number | null;
            retry_backoff_seconds?: number;
            timeout_seconds?: number | null;
            concurrency_key?: string | null;
            max_concurrent_per_key?: number | null;
            rate_limit?: {
                count: number;
                period_seconds: number;
                per_key: boolean;
            } | null;
            requires_approval?: boolean;
            approver_ids?: string[];
            approval_timeout_seconds?: number | null;
        };
        BulkActionResult: {
            /** @description Jobs the filters selected (at most `limit`) in a status the action applies to */
            matched: number;
            /** @description Jobs the action changed; 0 on a dry run. Jobs that changed state meanwhile are skipped */
            affected: number;
            /** @description Up to 1000 of the affected jobs (of the matched ones on a dry run), oldest first */
            job_ids: string[];
        };
        BulkCancelRequest: {
            /**
             * Format: uuid
             * @description Only this automation's jobs
             */
            automation_id?: string;
            /** @description Only jobs in one of these statuses (queued, running); all of them when omitted */
            status?: ("queued" | "running")[];
            /**
             * Format: date-time
             * @description Inclusive lower bound on created_at (RFC 3339)
             */
            created_after?: string;
            /**
             * Format: date-time
             * @description Exclusive upper bound on created_at (RFC 3339)
             */
            created_before?: string;
            /** @description Count and list the matching jobs, change nothing. Default: `false`. */
            dry_run?: boolean;
            /** @description Most jobs the action selects, oldest first by (created_at, id). Default: `1000`. */
            limit?: number;
        };
        BulkRetryRequest: {
            /**
             * Format: uuid
             * @description Only this automation's jobs
             */
            automation_id?: string;
            /** @description Only jobs in one of these statuses (failed, cancelled); all of them when omitted */
            status?: ("failed" | "cancelled")[];
            /**
             * Format: date-time
             * @description Inclusive lower bound on created_at (RFC 3339)
             */
            created_after?: string;
            /**
             * Format: date-time
             * @description Exclusive upper bound on created_at (RFC 3339)
             */
            created_before?: string;
            /** @description Count and list the matching jobs, change nothing. Default: `false`. */
            dry_run?: boolean;
            /** @description Most jobs the action selects, oldest first by (created_at, id). Default: `1000`. */
            limit?: number;
        };
        ChangeOwnPasswordRequest: {
            /** @description The password the caller signs in with now */
            current_password: string;
            /** @description At least 1 character (HUB_PASSWORD_MIN_LENGTH) and at most 72 bytes in UTF-8 (never cut); kept only as a bcrypt hash */
            new_password: string;
        };
        ChangeUserRequest: {
            /**
             * @description The new role; the same role is a no-op
             * @enum {string}
             */
            role?: "admin" | "employee";
            /** @description The sectors an employee reaches: null (every sector) or 1–100 distinct sector ids. Stored for admins too; admins reach every sector */
            sector_ids?: string[] | null;
        };
        ClaimedJob: {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            automation_id: string;
            /** @enum {string} */
            status: "queued" | "running" | "completed" | "failed" | "cancelled";
            context: {
                [key: string]: unknown;
            };
            result: {
                [key: string]: unknown;
            } | null;
            error: string | null;
            attempts: number;
            created_by: string | null;
            /** Format: date-time */
            created_at: string;
            started_at: string | null;
            finished_at: string | null;
            lease_expires_at: string | null;
            /** @description While queued, why the job is not running yet, the first that applies: dependencies (a job of depends_on has not finished), awaiting_approval (its approval is pending: POST /jobs/{job_id}/approve), development_mode (dispatch paused), maintenance_window (a maintenance window of its automation, its sector or the whole hub is in effect, or with drain begins within the automation's timeout_seconds; see resumes_at), scheduled (available_at ahead, never attempted), scheduled_retry (available_at ahead after an attempt: back-off), no_worker (none registered), worker_offline (registered but not seen within HUB_WORKER_TTL_SECONDS), rate_limited (the automation's rate_limit window, or its key value's with per_key, is full; GET /jobs/{job_id} then shows as available_at when it next allows a start), concurrency_limit (the running jobs, plus the due jobs ahead of it, fill max_concurrent_jobs), key_concurrency_limit (its concurrency_key value runs max_concurrent_per_key jobs, or the due jobs of that value ahead of it take the rest), next_in_line (a slot is free for it: one of the next claims hands it out). Null when not queued. */
            waiting_reason: ("dependencies" | "awaiting_approval" | "development_mode" | "maintenance_window" | "scheduled" | "scheduled_retry" | "no_worker" | "worker_offline" | "rate_limited" | "concurrency_limit" | "key_concurrency_limit" | "next_in_line") | null;
            /** @description In GET /jobs/{job_id}: 1 + the automation's due queued jobs ahead of it in claim order (priority desc, available_at, creation); with a concurrency_key, only those of its key value (it does not predict the order across values, which fair sharing decides). Null when not queued, while its own available_at is ahead, and in lists. */
            queue_position: number | null;
            /** @description In GET /jobs/{job_id} of a queued job that maintenance windows hold: when they end (the latest end among those in effect, overlapping ones followed to the last); null otherwise and in lists */
            resumes_at: string | null;
            /**
             * Format: date-time
             * @description When the job may be handed out: the later of run_at and its creation (or of a reschedule), later while it waits out a retry back-off; PostgreSQL's clock. In GET /jobs/{job_id} of a rate_limited job: when the rate limit's window next allows a start (computed when read; lists show the stored value)
             */
            available_at: string;
            /** @description The failed or cancelled job this one retries (POST /jobs/{job_id}/retry); null otherwise */
            retry_of: string | null;
            /** @description The time the job was asked to run at, as sent (POST /jobs or a reschedule); null when none was given */
            run_at: string | null;
            /** @description -100 to 100; among due jobs, higher priorities are handed out first */
            priority: number;
            /** @description The schedule whose fire created the job; null for jobs created by a request */
            schedule_id: string | null;
            /** @description The schedule's fire time this job was created for; null otherwise */
            fire_time: string | null;
            /** @description The worker's last reported progress (a heartbeat's `progress`); null until reported, and again once the job is queued again */
            progress: components["schemas"]["JobProgress"] | null;
            /** @description The job's approval (CONTRACT §6.17); null for a job that needs none */
            approval: components["schemas"]["Approval"] | null;
            /** @description The jobs this one waits for, in the order given (batch indexes resolved); [] for none */
            depends_on: string[];
            /**
             * @description What a failed or cancelled dependency does to this job
             * @enum {string}
             */
            on_dependency_failure: "cancel" | "run";
            /** @description How many of depends_on have not finished yet; while above 0 the job is queued with waiting_reason dependencies and never handed out */
            pending_dependencies: number;
            /** @description W3C traceparent of this attempt's `job.run <automation slug>` span, in the trace of the request that created the job: run the job as its child (send it as the `traceparent` header of your calls about the job). Null when the hub does not trace */
            traceparent: string | null;
            /** @description W3C tracestate to send with traceparent; null when there is none */
            tracestate: string | null;
            /** @description The job's dependencies with their outcomes, in depends_on order ([] for none); results past 1048576 bytes in all are omitted */
            dependencies: components["schemas"]["JobDependency"][];
        };
        ClaimedJobBatch: {
            /** @description Now running under leases, in claim order, each with the trace context to run it in */
            jobs: components["schemas"]["ClaimedJob"][];
        };
        /**
         * @default {
         *       "max_jobs": 10,
         *       "wait_seconds": 0
         *     }
         */
        ClaimJobBatchRequest: {
            /** @description At most this many jobs, and never beyond max_concurrent_jobs. Default: `10`. */
            max_jobs?: number;
            /** @description Long-poll: how long to wait for a first job before answering 204. Default: `0`. */
            wait_seconds?: number;
        };
        /**
         * @default {
         *       "wait_seconds": 0
         *     }
         */
        ClaimJobRequest: {
            /** @description Long-poll: how long to wait for a job before answering 204. Default: `0`. */
            wait_seconds?: number;
        };
        CompleteAndClaimJobRequest: {
            /** @description At most HUB_JOB_RESULT_MAX_BYTES (262144) bytes as compact JSON */
            result: {
                [key: string]: unknown;
            };
            /** @description The job's `attempts` as claimed; when given, a call for another attempt is refused with 409 */
            attempt?: number;
            /** @description Long-poll for the next job once the result is recorded: how long to wait before answering with `next: null`. Default: `0`. */
            wait_seconds?: number;
        };
        CompletedAndClaimedJobs: {
            /** @description The job whose result was recorded, now completed */
            job: components["schemas"]["Job"];
            /** @description The worker's next job, now running under a lease, as POST /jobs/claim hands it out; null when none came within wait_seconds */
            next: components["schemas"]["ClaimedJob"] | null;
        };
        CompleteJobBatchRequest: {
            items: {
                /** Format: uuid */
                id: string;
                result: {
                    [key: string]: unknown;
                };
                /** @description The job's `attempts` as claimed; when given, a call for another attempt is refused (conflict) */
                attempt?: number;
            }[];
        };
        CompleteJobBatchResult: {
            /** @description One per item, in input order */
            results: {
                /** Format: uuid */
                id: string;
                /**
                 * @description conflict: not running under this worker's lease (the 409 of a single complete)
                 * @enum {string}
                 */
                status: "completed" | "conflict" | "not_found";
            }[];
        };
        CompleteJobRequest: {
            /** @description At most HUB_JOB_RESULT_MAX_BYTES (262144) bytes as compact JSON */
            result: {
                [key: string]: unknown;
            };
            /** @description The job's `attempts` as claimed; when given, a call for another attempt is refused with 409 */
            attempt?: number;
        };
        CreateApiKeyRequest: {
            /** @description What the key is for (the program using it); need not be unique */
            name: string;
            /** @description The key stops working this many days from now. Default: `90`. */
            expires_in_days?: number;
            /** @description Scope, fixed for the key's life: the key reaches only these automations (1–100 distinct ids, each within what its user reaches); null: everything its user reaches. Default: `null`. */
            automation_ids?: string[] | null;
            /** @description Scope: only GET (streams included) and DELETE of the key itself; anything else → 403. Default: `false`. */
            read_only?: boolean;
            /** @description "employee": an admin's key that acts as an employee, with its user's sector_ids; null acts with its user's role. An employee's key takes no role. Default: `null`. */
            role?: "employee" | null;
        };
        CreateAutomationRequest: {
            name: string;
            slug: string;
            /** Format: uuid */
            sector_id: string;
            /** @description Default: `[]`. */
            parameters?: {
                name: string;
                /** @description Default: `""`. */
                description?: string;
            }[];
            /** @description Default: `""`. */
            description?: string;
            /** @description Default: `1`. */
            max_concurrent_jobs?: number;
            /** @description Attempts a job gets before it ends `failed`; defaults to the hub's HUB_JOB_MAX_ATTEMPTS */
            max_attempts?: number;
            /** @description Back-off base: after failed attempt n a job waits this × 2^(n−1) s (±20 % jitter, at most 1 h); default 10 */
            retry_backoff_seconds?: number;
            /** @description A job running longer than this (heartbeats or not) fails with error `timeout`, retryably; null = no limit */
            timeout_seconds?: number | null;
            /** @description The parameter whose value in a job's context groups jobs for max_concurrent_per_key, per-key rate limits and fair sharing; null = none */
            concurrency_key?: string | null;
            /** @description Jobs of one concurrency_key value running at once; required while a key is set, null without one */
            max_concurrent_per_key?: number | null;
            /** @description At most `count` job starts (retries too) in any `period_seconds`, for the automation or, with per_key, for each concurrency_key value; null = none */
            rate_limit?: {
                /** @description Starts allowed per window */
                count: number;
                /** @description The window: starts counted over the last period_seconds */
                period_seconds: number;
                /** @description Count per concurrency_key value (needs a key). Default: `false`. */
                per_key?: boolean;
            } | null;
            /** @description Every job of the automation waits for an approval (by an admin or one of approver_ids) before it may run. Default: `false`. */
            requires_approval?: boolean;
            /** @description Up to 50 active users (any role) who may decide the automation's approvals besides admins; never a job's own creator. Default: `[]`. */
            approver_ids?: string[];
            /** @description A pending approval older than this expires: the job is cancelled with reason approval_expired; null = never. Default: `null`. */
            approval_timeout_seconds?: number | null;
        };
        CreatedApiKey: {
            /** Format: uuid */
            id: string;
            /** @description `hub_…`: send it as `Authorization: Bearer <key>`. Shown only in this response */
            key: string;
            /** Format: date-time */
            expires_at: string;
        };
        /** @description The id of what the request created */
        CreatedId: {
            /** Format: uuid */
            id: string;
        };
        CreatedJobBatch: {
            /** @description The new jobs' ids, in input order */
            ids: string[];
        };
        CreateJobBatchItem: {
            /** Format: uuid */
            automation_id: string;
            /** @description Checked against the automation's context_schema; at most HUB_JOB_CONTEXT_MAX_BYTES (65536) bytes as compact JSON. Default: `{}`. */
            context?: {
                [key: string]: unknown;
            };
            /** @description Run the job no earlier than this time (RFC 3339, at most 365 days ahead). Omitted, null or past: as soon as possible. Until then the job is queued with waiting_reason scheduled. */
            run_at?: string | null;
            /**
             * @description -100 to 100: among due jobs, higher priorities are handed out first, then earlier available_at, then creation order. Default: `0`.
             * @example 10
             */
            priority?: number;
            /** @description true: the job waits for an approval before it may run, whatever its automation says; false never lifts the automation's requirement */
            requires_approval?: boolean;
            /** @description Up to 100 jobs this one waits for: it is not handed out before every one has finished (completed, failed for good or cancelled). Each once; a job id of any automation you may read, or in a batch the index of an earlier item. Default: `[]`. */
            depends_on?: (string | number)[];
            /**
             * @description cancel: a dependency that ends failed or cancelled cancels this job (reason dependency_failed); run: it runs once all have finished, whatever their outcome. Default: `"cancel"`.
             * @enum {string}
             */
            on_dependency_failure?: "cancel" | "run";
        };
        CreateJobBatchRequest: {
            /** @description Created all or none, in this order; each item is checked as a POST /jobs body */
            jobs: components["schemas"]["CreateJobBatchItem"][];
        };
        CreateJobRequest: components["schemas"]["CreateJobBatchItem"];
        CreateSectorRequest: {
            name: string;
            color: string;
        };
        CreateUserRequest: {
            /** Format: email */
            email: string;
            /** @description At least 1 character (HUB_PASSWORD_MIN_LENGTH) and at most 72 bytes in UTF-8 (never cut); kept only as a bcrypt hash */
            password: string;
            /** @enum {string} */
            role: "admin" | "employee";
            /** @description The sectors an employee reaches: null (every sector) or 1–100 distinct sector ids. Stored for admins too; admins reach every sector. Default: `null`. */
            sector_ids?: string[] | null;
        };
        CreateWebhookRequest: {
            /** @description https:// URL (http:// only with HUB_WEBHOOKS_ALLOW_INSECURE), no user name or password; its host must resolve to public addresses only (HUB_WEBHOOKS_ALLOW_PRIVATE lifts that). Checked after the other fields. */
            url: string;
            /** @description Catalogue event types to deliver, or ["*"] for all of them; duplicates are ignored */
            event_types: ("*" | "sector.created" | "automation.created" | "automation.updated" | "automation.deactivated" | "automation.development_mode_entered" | "automation.development_mode_exited" | "worker.registered" | "worker.unregistered" | "worker.api_key_rotated" | "worker.status_changed" | "job.created" | "job.started" | "job.completed" | "job.failed" | "job.requeued" | "job.approval_requested" | "job.approved" | "job.rejected" | "job.cancelled" | "job.rescheduled" | "user.created" | "user.deactivated" | "user.password_changed" | "user.password_reset" | "user.role_changed" | "user.reactivated" | "user.sectors_changed" | "schedule.created" | "schedule.updated" | "schedule.deleted" | "schedule.skipped" | "maintenance_window.created" | "maintenance_window.updated" | "maintenance_window.deleted" | "maintenance_window.started" | "maintenance_window.ended" | "webhook.created" | "webhook.deleted" | "webhook.disabled" | "api_key.created" | "api_key.revoked" | "alert.firing" | "alert.resolved")[];
            /** @description Default: `""`. */
            description?: string;
            /**
             * @description standard (the default): the event record of GET /events; slack: {"text": <sentence>}, which Slack, Mattermost and Microsoft Teams incoming webhooks take (an alert's message for alert.*, one line for every other event). Signed the same way either way. Default: `"standard"`.
             * @enum {string}
             */
            format?: "standard" | "slack";
        };
        /** @description One state change, from the outbox: one variant per event type, with its payload */
        Event: components["schemas"]["SectorCreatedEvent"] | components["schemas"]["AutomationCreatedEvent"] | components["schemas"]["AutomationUpdatedEvent"] | components["schemas"]["AutomationDeactivatedEvent"] | components["schemas"]["AutomationDevelopmentModeEnteredEvent"] | components["schemas"]["AutomationDevelopmentModeExitedEvent"] | components["schemas"]["WorkerRegisteredEvent"] | components["schemas"]["WorkerUnregisteredEvent"] | components["schemas"]["WorkerApiKeyRotatedEvent"] | components["schemas"]["WorkerStatusChangedEvent"] | components["schemas"]["JobCreatedEvent"] | components["schemas"]["JobStartedEvent"] | components["schemas"]["JobCompletedEvent"] | components["schemas"]["JobFailedEvent"] | components["schemas"]["JobRequeuedEvent"] | components["schemas"]["JobApprovalRequestedEvent"] | components["schemas"]["JobApprovedEvent"] | components["schemas"]["JobRejectedEvent"] | components["schemas"]["JobCancelledEvent"] | components["schemas"]["JobRescheduledEvent"] | components["schemas"]["UserCreatedEvent"] | components["schemas"]["UserDeactivatedEvent"] | components["schemas"]["UserPasswordChangedEvent"] | components["schemas"]["UserPasswordResetEvent"] | components["schemas"]["UserRoleChangedEvent"] | components["schemas"]["UserReactivatedEvent"] | components["schemas"]["UserSectorsChangedEvent"] | components["schemas"]["ScheduleCreatedEvent"] | components["schemas"]["ScheduleUpdatedEvent"] | components["schemas"]["ScheduleDeletedEvent"] | components["schemas"]["ScheduleSkippedEvent"] | components["schemas"]["MaintenanceWindowCreatedEvent"] | components["schemas"]["MaintenanceWindowUpdatedEvent"] | components["schemas"]["MaintenanceWindowDeletedEvent"] | components["schemas"]["MaintenanceWindowStartedEvent"] | components["schemas"]["MaintenanceWindowEndedEvent"] | components["schemas"]["WebhookCreatedEvent"] | components["schemas"]["WebhookDeletedEvent"] | components["schemas"]["WebhookDisabledEvent"] | components["schemas"]["ApiKeyCreatedEvent"] | components["schemas"]["ApiKeyRevokedEvent"] | components["schemas"]["AlertFiringEvent"] | components["schemas"]["AlertResolvedEvent"];
        FailJobRequest: {
            error: string;
            /** @description Re-queue the job while attempts remain. Default: `false`. */
            retryable?: boolean;
            /** @description The job's `attempts` as claimed; when given, a call for another attempt is refused with 409 */
            attempt?: number;
        };
        Health: {
            status: string;
        };
        HeartbeatJobBatchRequest: {
            ids: string[];
        };
        HeartbeatJobBatchResult: {
            /** @description One per id, in input order */
            results: {
                /** Format: uuid */
                id: string;
                /** @enum {string} */
                status: "ok" | "conflict" | "not_found";
                /** @description The new lease expiry when ok, else null */
                lease_expires_at: string | null;
            }[];
        };
        /** @default {} */
        HeartbeatJobRequest: {
            /** @description The job's `attempts` as claimed; when given, a call for another attempt is refused with 409 */
            attempt?: number;
            progress?: components["schemas"]["ProgressReport"];
        };
        /** @description The body of every error other than 422 */
        HTTPError: {
            detail: string;
        };
        /** @description One run of an automation with a context, from queued to completed, failed or cancelled */
        Job: {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            automation_id: string;
            /** @enum {string} */
            status: "queued" | "running" | "completed" | "failed" | "cancelled";
            context: {
                [key: string]: unknown;
            };
            result: {
                [key: string]: unknown;
            } | null;
            error: string | null;
            attempts: number;
            created_by: string | null;
            /** Format: date-time */
            created_at: string;
            started_at: string | null;
            finished_at: string | null;
            lease_expires_at: string | null;
            /** @description While queued, why the job is not running yet, the first that applies: dependencies (a job of depends_on has not finished), awaiting_approval (its approval is pending: POST /jobs/{job_id}/approve), development_mode (dispatch paused), maintenance_window (a maintenance window of its automation, its sector or the whole hub is in effect, or with drain begins within the automation's timeout_seconds; see resumes_at), scheduled (available_at ahead, never attempted), scheduled_retry (available_at ahead after an attempt: back-off), no_worker (none registered), worker_offline (registered but not seen within HUB_WORKER_TTL_SECONDS), rate_limited (the automation's rate_limit window, or its key value's with per_key, is full; GET /jobs/{job_id} then shows as available_at when it next allows a start), concurrency_limit (the running jobs, plus the due jobs ahead of it, fill max_concurrent_jobs), key_concurrency_limit (its concurrency_key value runs max_concurrent_per_key jobs, or the due jobs of that value ahead of it take the rest), next_in_line (a slot is free for it: one of the next claims hands it out). Null when not queued. */
            waiting_reason: ("dependencies" | "awaiting_approval" | "development_mode" | "maintenance_window" | "scheduled" | "scheduled_retry" | "no_worker" | "worker_offline" | "rate_limited" | "concurrency_limit" | "key_concurrency_limit" | "next_in_line") | null;
            /** @description In GET /jobs/{job_id}: 1 + the automation's due queued jobs ahead of it in claim order (priority desc, available_at, creation); with a concurrency_key, only those of its key value (it does not predict the order across values, which fair sharing decides). Null when not queued, while its own available_at is ahead, and in lists. */
            queue_position: number | null;
            /** @description In GET /jobs/{job_id} of a queued job that maintenance windows hold: when they end (the latest end among those in effect, overlapping ones followed to the last); null otherwise and in lists */
            resumes_at: string | null;
            /**
             * Format: date-time
             * @description When the job may be handed out: the later of run_at and its creation (or of a reschedule), later while it waits out a retry back-off; PostgreSQL's clock. In GET /jobs/{job_id} of a rate_limited job: when the rate limit's window next allows a start (computed when read; lists show the stored value)
             */
            available_at: string;
            /** @description The failed or cancelled job this one retries (POST /jobs/{job_id}/retry); null otherwise */
            retry_of: string | null;
            /** @description The time the job was asked to run at, as sent (POST /jobs or a reschedule); null when none was given */
            run_at: string | null;
            /** @description -100 to 100; among due jobs, higher priorities are handed out first */
            priority: number;
            /** @description The schedule whose fire created the job; null for jobs created by a request */
            schedule_id: string | null;
            /** @description The schedule's fire time this job was created for; null otherwise */
            fire_time: string | null;
            /** @description The worker's last reported progress (a heartbeat's `progress`); null until reported, and again once the job is queued again */
            progress: components["schemas"]["JobProgress"] | null;
            /** @description The job's approval (CONTRACT §6.17); null for a job that needs none */
            approval: components["schemas"]["Approval"] | null;
            /** @description The jobs this one waits for, in the order given (batch indexes resolved); [] for none */
            depends_on: string[];
            /**
             * @description What a failed or cancelled dependency does to this job
             * @enum {string}
             */
            on_dependency_failure: "cancel" | "run";
            /** @description How many of depends_on have not finished yet; while above 0 the job is queued with waiting_reason dependencies and never handed out */
            pending_dependencies: number;
        };
        /** @description job.approval_requested */
        JobApprovalRequestedEvent: {
            /** Format: uuid */
            id: string;
            /**
             * Format: uuid
             * @description The job's id
             */
            aggregate_id: string;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            event_type: "job.approval_requested";
            /** @description The user who caused it; null for worker and system actions */
            actor_id: string | null;
            payload: components["schemas"]["JobApprovalRequestedPayload"];
            /** @description When the event relay published it to the Redis stream; null until then */
            dispatched_at: string | null;
            /** Format: date-time */
            created_at: string;
        };
        /** @description The payload of job.approval_requested */
        JobApprovalRequestedPayload: {
            /** Format: uuid */
            automation_id: string;
            /** @description When the request expires unless decided; null: never (§6.17) */
            expires_at: string | null;
        };
        /** @description job.approved */
        JobApprovedEvent: {
            /** Format: uuid */
            id: string;
            /**
             * Format: uuid
             * @description The job's id
             */
            aggregate_id: string;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            event_type: "job.approved";
            /** @description The user who caused it; null for worker and system actions */
            actor_id: string | null;
            payload: components["schemas"]["JobApprovedPayload"];
            /** @description When the event relay published it to the Redis stream; null until then */
            dispatched_at: string | null;
            /** Format: date-time */
            created_at: string;
        };
        /** @description The payload of job.approved */
        JobApprovedPayload: {
            /** Format: uuid */
            automation_id: string;
            comment: string | null;
        };
        /** @description job.cancelled */
        JobCancelledEvent: {
            /** Format: uuid */
            id: string;
            /**
             * Format: uuid
             * @description The job's id
             */
            aggregate_id: string;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            event_type: "job.cancelled";
            /** @description The user who caused it; null for worker and system actions */
            actor_id: string | null;
            payload: components["schemas"]["JobCancelledPayload"];
            /** @description When the event relay published it to the Redis stream; null until then */
            dispatched_at: string | null;
            /** Format: date-time */
            created_at: string;
        };
        /** @description The payload of job.cancelled */
        JobCancelledPayload: {
            /** Format: uuid */
            automation_id: string;
            /** @enum {string} */
            reason: "cancelled_by_user" | "automation_deactivated" | "dependency_failed" | "rejected" | "approval_expired";
            /**
             * Format: uuid
             * @description With reason dependency_failed: the job of its depends_on that ended failed or cancelled (§6.16)
             */
            dependency_id?: string;
        };
        /** @description job.completed */
        JobCompletedEvent: {
            /** Format: uuid */
            id: string;
            /**
             * Format: uuid
             * @description The job's id
             */
            aggregate_id: string;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            event_type: "job.completed";
            /** @description The user who caused it; null for worker and system actions */
            actor_id: string | null;
            payload: components["schemas"]["JobCompletedPayload"];
            /** @description When the event relay published it to the Redis stream; null until then */
            dispatched_at: string | null;
            /** Format: date-time */
            created_at: string;
        };
        /** @description The payload of job.completed */
        JobCompletedPayload: {
            /** Format: uuid */
            automation_id: string;
            /** Format: uuid */
            worker_id: string;
            result: {
                [key: string]: unknown;
            };
        };
        /** @description job.created */
        JobCreatedEvent: {
            /** Format: uuid */
            id: string;
            /**
             * Format: uuid
             * @description The job's id
             */
            aggregate_id: string;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            event_type: "job.created";
            /** @description The user who caused it; null for worker and system actions */
            actor_id: string | null;
            payload: components["schemas"]["JobCreatedPayload"];
            /** @description When the event relay published it to the Redis stream; null until then */
            dispatched_at: string | null;
            /** Format: date-time */
            created_at: string;
        };
        /** @description The payload of job.created */
        JobCreatedPayload: {
            /** Format: uuid */
            automation_id: string;
            context: {
                [key: string]: unknown;
            };
            /**
             * Format: uuid
             * @description The failed or cancelled job this one retries (§6.4)
             */
            retry_of?: string;
            /**
             * @description Present on a retry given a context (§6.14), even the old one
             * @constant
             */
            context_changed?: true;
            /**
             * Format: uuid
             * @description The schedule that fired it (§6.9)
             */
            schedule_id?: string;
            /**
             * Format: date-time
             * @description The schedule's fire time it was made for (§6.9)
             */
            fire_time?: string;
            /** @description The jobs it waits for, in the order given; present when not empty (§6.16) */
            depends_on?: string[];
        };
        JobDependencies: {
            items: components["schemas"]["JobDependency"][];
        };
        JobDependency: {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            automation_id: string;
            /** @enum {string} */
            status: "queued" | "running" | "completed" | "failed" | "cancelled";
            result: {
                [key: string]: unknown;
            } | null;
            error: string | null;
            /**
             * @description Present when the results of all dependencies pass 1048576 bytes: read them whole with GET /jobs/{job_id}/dependencies
             * @constant
             */
            result_omitted?: true;
        };
        /** @description job.failed */
        JobFailedEvent: {
            /** Format: uuid */
            id: string;
            /**
             * Format: uuid
             * @description The job's id
             */
            aggregate_id: string;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            event_type: "job.failed";
            /** @description The user who caused it; null for worker and system actions */
            actor_id: string | null;
            payload: components["schemas"]["JobFailedPayload"];
            /** @description When the event relay published it to the Redis stream; null until then */
            dispatched_at: string | null;
            /** Format: date-time */
            created_at: string;
        };
        /** @description The payload of job.failed */
        JobFailedPayload: {
            /** Format: uuid */
            automation_id: string;
            error: string;
            attempts: number;
        };
        JobLogLine: {
            /** @description The line's place in the job's log: increasing in order of acceptance over all attempts, not necessarily consecutive */
            seq: number;
            /**
             * Format: date-time
             * @description As the worker sent it, in UTC (or the hub's time of acceptance)
             */
            ts: string;
            /** @enum {string} */
            level: "debug" | "info" | "warn" | "error";
            message: string;
            /** @description The job's attempts when the line was accepted */
            attempt: number;
        };
        /** @description The job is not running under this worker's current lease; nothing changed */
        JobNotLeasedError: {
            detail: string;
            /**
             * @description The job's status now: `cancelled` tells a worker that missed the signal to stop
             * @enum {string}
             */
            status: "queued" | "running" | "completed" | "failed" | "cancelled";
        };
        /** @description The worker's last reported progress */
        JobProgress: {
            /** @description 0–100, or null */
            percent: number | null;
            message: string | null;
            /**
             * Format: date-time
             * @description When the heartbeat that set it was accepted
             */
            updated_at: string;
        };
        /** @description job.rejected */
        JobRejectedEvent: {
            /** Format: uuid */
            id: string;
            /**
             * Format: uuid
             * @description The job's id
             */
            aggregate_id: string;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            event_type: "job.rejected";
            /** @description The user who caused it; null for worker and system actions */
            actor_id: string | null;
            payload: components["schemas"]["JobRejectedPayload"];
            /** @description When the event relay published it to the Redis stream; null until then */
            dispatched_at: string | null;
            /** Format: date-time */
            created_at: string;
        };
        /** @description The payload of job.rejected */
        JobRejectedPayload: {
            /** Format: uuid */
            automation_id: string;
            comment: string;
        };
        /** @description job.requeued */
        JobRequeuedEvent: {
            /** Format: uuid */
            id: string;
            /**
             * Format: uuid
             * @description The job's id
             */
            aggregate_id: string;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            event_type: "job.requeued";
            /** @description The user who caused it; null for worker and system actions */
            actor_id: string | null;
            payload: components["schemas"]["JobRequeuedPayload"];
            /** @description When the event relay published it to the Redis stream; null until then */
            dispatched_at: string | null;
            /** Format: date-time */
            created_at: string;
        };
        /** @description The payload of job.requeued */
        JobRequeuedPayload: {
            /** Format: uuid */
            automation_id: string;
            /** @enum {string} */
            reason: "lease_expired" | "retryable_failure" | "timeout" | "worker_unregistered" | "worker_key_rotated";
            attempts: number;
            /**
             * Format: date-time
             * @description When it may be claimed again
             */
            available_at: string;
        };
        /** @description job.rescheduled */
        JobRescheduledEvent: {
            /** Format: uuid */
            id: string;
            /**
             * Format: uuid
             * @description The job's id
             */
            aggregate_id: string;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            event_type: "job.rescheduled";
            /** @description The user who caused it; null for worker and system actions */
            actor_id: string | null;
            payload: components["schemas"]["JobRescheduledPayload"];
            /** @description When the event relay published it to the Redis stream; null until then */
            dispatched_at: string | null;
            /** Format: date-time */
            created_at: string;
        };
        /** @description The payload of job.rescheduled */
        JobRescheduledPayload: {
            /** Format: uuid */
            automation_id: string;
            run_at: string | null;
            priority: number;
            /**
             * Format: date-time
             * @description ISO 8601, UTC
             */
            available_at: string;
        };
        /** @description job.started */
        JobStartedEvent: {
            /** Format: uuid */
            id: string;
            /**
             * Format: uuid
             * @description The job's id
             */
            aggregate_id: string;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            event_type: "job.started";
            /** @description The user who caused it; null for worker and system actions */
            actor_id: string | null;
            payload: components["schemas"]["JobStartedPayload"];
            /** @description When the event relay published it to the Redis stream; null until then */
            dispatched_at: string | null;
            /** Format: date-time */
            created_at: string;
        };
        /** @description The payload of job.started */
        JobStartedPayload: {
            /** Format: uuid */
            automation_id: string;
            /** Format: uuid */
            worker_id: string;
            attempt: number;
        };
        KeyQueueDepth: {
            /** @description The concurrency_key value; null for jobs whose context lacks it */
            key: string | null;
            /** @description Its due queued jobs */
            queued: number;
            running: number;
            /** @description Starts its window still allows now under a per-key rate limit; null otherwise */
            rate_limit_remaining: number | null;
        };
        Lease: {
            /** Format: date-time */
            lease_expires_at: string;
        };
        /** @description The OAuth2 password form: the e-mail as username */
        LoginForm: {
            username: string;
            password: string;
            grant_type?: string;
        };
        LoginRequest: {
            email: string;
            password: string;
        };
        /**
         * @description A time during which no job of its scope starts (one-off, or recurring by cron)
         * @example {
         *       "id": "5d7e2c1a-3b4f-4a6e-8c9d-0e1f2a3b4c5d",
         *       "automation_id": null,
         *       "sector_id": "9b2e6c1d-7a4f-4e0b-8c3d-2f1a5e6b7c8d",
         *       "starts_at": null,
         *       "ends_at": null,
         *       "cron": "0 1 * * SUN",
         *       "timezone": "Europe/Berlin",
         *       "duration_seconds": 7200,
         *       "drain": true,
         *       "description": "ERP backup every Sunday night",
         *       "active": false,
         *       "next_start_at": "2026-12-06T00:00:00.000Z",
         *       "next_end_at": "2026-12-06T02:00:00.000Z",
         *       "created_at": "2026-12-01T09:12:44.120Z"
         *     }
         */
        MaintenanceWindow: {
            /** Format: uuid */
            id: string;
            automation_id: string | null;
            sector_id: string | null;
            /** @description A one-off window's start; null for a recurring one */
            starts_at: string | null;
            /** @description A one-off window's end; null for a recurring one */
            ends_at: string | null;
            /** @description A recurring window's cron expression; null for a one-off one */
            cron: string | null;
            timezone: string | null;
            duration_seconds: number | null;
            drain: boolean;
            description: string;
            /** @description In effect now (PostgreSQL's clock) */
            active: boolean;
            /** @description The next start still ahead; null when none */
            next_start_at: string | null;
            /** @description The end of the occurrence in effect, or else of the next one; null when none */
            next_end_at: string | null;
            /** Format: date-time */
            created_at: string;
        };
        /** @description maintenance_window.created */
        MaintenanceWindowCreatedEvent: {
            /** Format: uuid */
            id: string;
            /**
             * Format: uuid
             * @description The maintenance_window's id
             */
            aggregate_id: string;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            event_type: "maintenance_window.created";
            /** @description The user who caused it; null for worker and system actions */
            actor_id: string | null;
            payload: components["schemas"]["MaintenanceWindowCreatedPayload"];
            /** @description When the event relay published it to the Redis stream; null until then */
            dispatched_at: string | null;
            /** Format: date-time */
            created_at: string;
        };
        /** @description The payload of maintenance_window.created */
        MaintenanceWindowCreatedPayload: {
            automation_id?: string | null;
            sector_id?: string | null;
            starts_at?: string | null;
            ends_at?: string | null;
            cron?: string | null;
            timezone?: string | null;
            duration_seconds?: number | null;
            drain?: boolean;
            description?: string;
        };
        /** @description maintenance_window.deleted */
        MaintenanceWindowDeletedEvent: {
            /** Format: uuid */
            id: string;
            /**
             * Format: uuid
             * @description The maintenance_window's id
             */
            aggregate_id: string;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            event_type: "maintenance_window.deleted";
            /** @description The user who caused it; null for worker and system actions */
            actor_id: string | null;
            payload: components["schemas"]["MaintenanceWindowDeletedPayload"];
            /** @description When the event relay published it to the Redis stream; null until then */
            dispatched_at: string | null;
            /** Format: date-time */
            created_at: string;
        };
        /** @description The payload of maintenance_window.deleted */
        MaintenanceWindowDeletedPayload: Record<string, never>;
        /** @description maintenance_window.ended */
        MaintenanceWindowEndedEvent: {
            /** Format: uuid */
            id: string;
            /**
             * Format: uuid
             * @description The maintenance_window's id
             */
            aggregate_id: string;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            event_type: "maintenance_window.ended";
            /** @description The user who caused it; null for worker and system actions */
            actor_id: string | null;
            payload: components["schemas"]["MaintenanceWindowEndedPayload"];
            /** @description When the event relay published it to the Redis stream; null until then */
            dispatched_at: string | null;
            /** Format: date-time */
            created_at: string;
        };
        /** @description The payload of maintenance_window.ended */
        MaintenanceWindowEndedPayload: {
            /**
             * Format: date-time
             * @description ISO 8601, UTC
             */
            starts_at: string;
            /**
             * Format: date-time
             * @description ISO 8601, UTC
             */
            ends_at: string;
        };
        MaintenanceWindowRequest: {
            /** @description Hold this automation's jobs (at most one of automation_id and sector_id; neither: every automation) */
            automation_id?: string | null;
            /** @description Hold the jobs of every automation of this sector */
            sector_id?: string | null;
            /** @description A one-off window's start (with ends_at); may be past: a window from now */
            starts_at?: string | null;
            /** @description A one-off window's end: after starts_at, in the future, at most 31 days after starts_at */
            ends_at?: string | null;
            /** @description A recurring window's starts: a cron expression as a schedule's (§6.9), with timezone and duration_seconds */
            cron?: string | null;
            timezone?: string | null;
            /** @description A recurring window's length from each fire time (60–604800 s) */
            duration_seconds?: number | null;
            /** @description Also start no job that could still be running when the window begins: none from the automation's timeout_seconds before it (nothing changes without one). Default: `false`. */
            drain?: boolean;
            /** @description Default: `""`. */
            description?: string;
        };
        /** @description maintenance_window.started */
        MaintenanceWindowStartedEvent: {
            /** Format: uuid */
            id: string;
            /**
             * Format: uuid
             * @description The maintenance_window's id
             */
            aggregate_id: string;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            event_type: "maintenance_window.started";
            /** @description The user who caused it; null for worker and system actions */
            actor_id: string | null;
            payload: components["schemas"]["MaintenanceWindowStartedPayload"];
            /** @description When the event relay published it to the Redis stream; null until then */
            dispatched_at: string | null;
            /** Format: date-time */
            created_at: string;
        };
        /** @description The payload of maintenance_window.started */
        MaintenanceWindowStartedPayload: {
            /**
             * Format: date-time
             * @description ISO 8601, UTC
             */
            starts_at: string;
            /**
             * Format: date-time
             * @description ISO 8601, UTC
             */
            ends_at: string;
        };
        /** @description maintenance_window.updated */
        MaintenanceWindowUpdatedEvent: {
            /** Format: uuid */
            id: string;
            /**
             * Format: uuid
             * @description The maintenance_window's id
             */
            aggregate_id: string;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            event_type: "maintenance_window.updated";
            /** @description The user who caused it; null for worker and system actions */
            actor_id: string | null;
            payload: components["schemas"]["MaintenanceWindowUpdatedPayload"];
            /** @description When the event relay published it to the Redis stream; null until then */
            dispatched_at: string | null;
            /** Format: date-time */
            created_at: string;
        };
        /** @description The payload of maintenance_window.updated */
        MaintenanceWindowUpdatedPayload: {
            automation_id?: string | null;
            sector_id?: string | null;
            starts_at?: string | null;
            ends_at?: string | null;
            cron?: string | null;
            timezone?: string | null;
            duration_seconds?: number | null;
            drain?: boolean;
            description?: string;
        };
        NotReady: {
            /** @description "Service temporarily unavailable" */
            detail: string;
            /** @constant */
            status: "unavailable";
            /** @description Which dependency is down */
            checks: {
                /** @enum {string} */
                database: "ok" | "down";
                /** @enum {string} */
                redis: "ok" | "down";
            };
        };
        /** @description Replaces the job's whole progress (an omitted field becomes null); without it, the progress stays as it is */
        ProgressReport: {
            /** @description 0–100 */
            percent?: number | null;
            /** @description At most 500 characters */
            message?: string | null;
        };
        RateLimit: {
            /** @description Starts allowed per window */
            count: number;
            /** @description The window: starts counted over the last period_seconds */
            period_seconds: number;
            per_key: boolean;
        };
        Readiness: {
            /** @constant */
            status: "ok";
            checks: {
                /** @enum {string} */
                database: "ok" | "down";
                /** @enum {string} */
                redis: "ok" | "down";
            };
        };
        RegisterWorkerRequest: {
            cloud_instance_id: string;
        };
        RejectJobRequest: {
            /** @description Why it may not run (1–1000 characters): required */
            comment: string;
        };
        ReplaceAutomationRequest: {
            name: string;
            description: string;
            /** Format: uuid */
            sector_id: string;
            max_concurrent_jobs: number;
            parameters: {
                name: string;
                /** @description Default: `""`. */
                description?: string;
            }[];
            /** @description Attempts a job gets before it ends `failed`; defaults to the hub's HUB_JOB_MAX_ATTEMPTS */
            max_attempts?: number;
            /** @description Back-off base: after failed attempt n a job waits this × 2^(n−1) s (±20 % jitter, at most 1 h); default 10 */
            retry_backoff_seconds?: number;
            /** @description A job running longer than this (heartbeats or not) fails with error `timeout`, retryably; null = no limit */
            timeout_seconds?: number | null;
            /** @description The parameter whose value in a job's context groups jobs for max_concurrent_per_key, per-key rate limits and fair sharing; null = none */
            concurrency_key?: string | null;
            /** @description Jobs of one concurrency_key value running at once; required while a key is set, null without one */
            max_concurrent_per_key?: number | null;
            /** @description At most `count` job starts (retries too) in any `period_seconds`, for the automation or, with per_key, for each concurrency_key value; null = none */
            rate_limit?: {
                /** @description Starts allowed per window */
                count: number;
                /** @description The window: starts counted over the last period_seconds */
                period_seconds: number;
                /** @description Count per concurrency_key value (needs a key). Default: `false`. */
                per_key?: boolean;
            } | null;
            /** @description Every job of the automation waits for an approval (by an admin or one of approver_ids) before it may run */
            requires_approval?: boolean;
            /** @description Up to 50 active users (any role) who may decide the automation's approvals besides admins; never a job's own creator */
            approver_ids?: string[];
            /** @description A pending approval older than this expires: the job is cancelled with reason approval_expired; null = never */
            approval_timeout_seconds?: number | null;
        };
        RescheduleJobRequest: {
            /** @description The new time to run the job at; null = now. available_at becomes the later of it and now. Omitted: the time stays as it is */
            run_at?: string | null;
            /**
             * @description The new priority; omitted: it stays as it is
             * @example 50
             */
            priority?: number;
        };
        ResetPasswordRequest: {
            /** @description At least 1 character (HUB_PASSWORD_MIN_LENGTH) and at most 72 bytes in UTF-8 (never cut); kept only as a bcrypt hash */
            new_password: string;
        };
        RetriedJob: {
            /**
             * Format: uuid
             * @description The retry of this job
             */
            id: string;
            /** @description With with_dependents: every job created, the retry of this one first, then the retries of its cancelled dependents in their creation order */
            ids?: string[];
        };
        /** @default {} */
        RetryJobRequest: {
            /** @description The new job's context instead of the old one's, checked against the automation's parameters as POST /jobs checks it; at most HUB_JOB_CONTEXT_MAX_BYTES (65536) bytes as compact JSON. Omitted: the old context */
            context?: {
                [key: string]: unknown;
            };
            /** @description true: also retry every job cancelled because this one failed or was cancelled (reason dependency_failed, at any depth, not retried yet), in one transaction, each depending on the retries of the jobs it depended on. Default false */
            with_dependents?: boolean;
        };
        /**
         * @default {
         *       "overlap_seconds": 0
         *     }
         */
        RotateWorkerApiKeyRequest: {
            /** @description How long the previous key keeps working (0: it stops at once). A later rotation ends this overlap at once. Default: `0`. */
            overlap_seconds?: number;
        };
        /**
         * @description A cron expression in a time zone that makes one job of its automation per fire
         * @example {
         *       "id": "3f0c1a52-0d5e-4a8e-9d43-0b7f5b1f2a11",
         *       "automation_id": "9b2e6c1d-7a4f-4e0b-8c3d-2f1a5e6b7c8d",
         *       "key": "weekday-invoice-export",
         *       "cron": "0 6 * * MON-FRI",
         *       "timezone": "Europe/Berlin",
         *       "context": {
         *         "month": "current"
         *       },
         *       "priority": 0,
         *       "enabled": true,
         *       "overlap": "skip",
         *       "description": "Invoices, every weekday at 06:00 Berlin time",
         *       "next_run_at": "2026-11-23T05:00:00.000Z",
         *       "last_run_at": "2026-11-20T05:00:00.000Z",
         *       "last_job_id": "c4a7e2b9-1d3f-4b6a-8e0c-5f2d9a1b3c7e",
         *       "created_at": "2026-11-01T09:12:44.120Z"
         *     }
         */
        Schedule: {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            automation_id: string;
            key: string | null;
            cron: string;
            timezone: string;
            context: {
                [key: string]: unknown;
            };
            priority: number;
            enabled: boolean;
            /** @enum {string} */
            overlap: "skip" | "allow";
            description: string;
            /** @description The next fire time; null while disabled */
            next_run_at: string | null;
            /** @description The fire time of the last job this schedule made; null before the first */
            last_run_at: string | null;
            /** @description The last job this schedule made */
            last_job_id: string | null;
            /** Format: date-time */
            created_at: string;
        };
        /** @description schedule.created */
        ScheduleCreatedEvent: {
            /** Format: uuid */
            id: string;
            /**
             * Format: uuid
             * @description The schedule's id
             */
            aggregate_id: string;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            event_type: "schedule.created";
            /** @description The user who caused it; null for worker and system actions */
            actor_id: string | null;
            payload: components["schemas"]["ScheduleCreatedPayload"];
            /** @description When the event relay published it to the Redis stream; null until then */
            dispatched_at: string | null;
            /** Format: date-time */
            created_at: string;
        };
        /** @description The payload of schedule.created */
        ScheduleCreatedPayload: {
            /** Format: uuid */
            automation_id?: string;
            key?: string | null;
            cron?: string;
            timezone?: string;
            context?: {
                [key: string]: unknown;
            };
            priority?: number;
            enabled?: boolean;
            /** @enum {string} */
            overlap?: "skip" | "allow";
            description?: string;
        };
        /** @description schedule.deleted */
        ScheduleDeletedEvent: {
            /** Format: uuid */
            id: string;
            /**
             * Format: uuid
             * @description The schedule's id
             */
            aggregate_id: string;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            event_type: "schedule.deleted";
            /** @description The user who caused it; null for worker and system actions */
            actor_id: string | null;
            payload: components["schemas"]["ScheduleDeletedPayload"];
            /** @description When the event relay published it to the Redis stream; null until then */
            dispatched_at: string | null;
            /** Format: date-time */
            created_at: string;
        };
        /** @description The payload of schedule.deleted */
        ScheduleDeletedPayload: Record<string, never>;
        /**
         * @example {
         *       "next": [
         *         "2026-11-23T05:00:00.000Z",
         *         "2026-11-24T05:00:00.000Z"
         *       ]
         *     }
         */
        SchedulePreview: {
            /** @description The next fire times after now (PostgreSQL's clock), in UTC, oldest first; fewer than count when fewer fall within 4 years */
            next: string[];
        };
        /**
         * @example {
         *       "cron": "0 6 * * MON-FRI",
         *       "timezone": "Europe/Berlin",
         *       "context": {
         *         "month": "current"
         *       },
         *       "key": "weekday-invoice-export",
         *       "description": "Invoices, every weekday at 06:00 Berlin time"
         *     }
         */
        ScheduleRequest: {
            /**
             * @description Five fields: minute hour day-of-month month day-of-week (numbers, JAN–DEC and SUN–SAT, `*`, ranges `1-5`, lists `1,15`, steps `*\/15` and `0-30/10`; 0 and 7 are Sunday; with day-of-month and day-of-week both restricted, either matches), or one of @yearly, @annually, @monthly, @weekly, @daily, @midnight, @hourly. A leading seconds field only where the hub sets HUB_SCHEDULES_ALLOW_SECONDS=true. Returned as sent.
             * @example 0 6 * * MON-FRI
             * @example *\/15 * * * *
             * @example @daily
             */
            cron: string;
            /**
             * @description IANA time zone the expression is read in (any name Intl.DateTimeFormat accepts), returned exactly as sent. A fixed time of day that does not exist on a DST day fires when the clocks spring forward; one that occurs twice fires once, at the first. Default: `"UTC"`.
             * @example Europe/Berlin
             * @example UTC
             * @example US/Eastern
             */
            timezone?: string;
            /** @description The context of every job the schedule makes; checked against the automation's parameters like POST /jobs; at most HUB_JOB_CONTEXT_MAX_BYTES bytes as compact JSON. Default: `{}`. */
            context?: {
                [key: string]: unknown;
            };
            /** @description Claim order: −100 to 100, higher first (then the earliest available_at, then creation order). Default: `0`. */
            priority?: number;
            /** @description A disabled schedule makes no job; enabling it starts from its next fire time (nothing is caught up). Default: `true`. */
            enabled?: boolean;
            /**
             * @description skip: a fire while a job of this schedule is still queued or running makes none (event schedule.skipped, reason overlap); allow: it makes one anyway. Default: `"skip"`.
             * @enum {string}
             */
            overlap?: "skip" | "allow";
            /** @description Your name for the schedule, unique per automation (a taken key → 409): a set-up script run twice creates one schedule. Default: `null`. */
            key?: string | null;
            /** @description Default: `""`. */
            description?: string;
        };
        /** @description schedule.skipped */
        ScheduleSkippedEvent: {
            /** Format: uuid */
            id: string;
            /**
             * Format: uuid
             * @description The schedule's id
             */
            aggregate_id: string;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            event_type: "schedule.skipped";
            /** @description The user who caused it; null for worker and system actions */
            actor_id: string | null;
            payload: components["schemas"]["ScheduleSkippedPayload"];
            /** @description When the event relay published it to the Redis stream; null until then */
            dispatched_at: string | null;
            /** Format: date-time */
            created_at: string;
        };
        /** @description The payload of schedule.skipped */
        ScheduleSkippedPayload: {
            /**
             * Format: date-time
             * @description ISO 8601, UTC
             */
            fire_time: string;
            /** @enum {string} */
            reason: "overlap" | "invalid_context";
        };
        /** @description schedule.updated */
        ScheduleUpdatedEvent: {
            /** Format: uuid */
            id: string;
            /**
             * Format: uuid
             * @description The schedule's id
             */
            aggregate_id: string;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            event_type: "schedule.updated";
            /** @description The user who caused it; null for worker and system actions */
            actor_id: string | null;
            payload: components["schemas"]["ScheduleUpdatedPayload"];
            /** @description When the event relay published it to the Redis stream; null until then */
            dispatched_at: string | null;
            /** Format: date-time */
            created_at: string;
        };
        /** @description The payload of schedule.updated */
        ScheduleUpdatedPayload: {
            /** Format: uuid */
            automation_id?: string;
            key?: string | null;
            cron?: string;
            timezone?: string;
            context?: {
                [key: string]: unknown;
            };
            priority?: number;
            enabled?: boolean;
            /** @enum {string} */
            overlap?: "skip" | "allow";
            description?: string;
        };
        /** @description A group of automations, such as a department */
        Sector: {
            /** Format: uuid */
            id: string;
            name: string;
            color: string;
            /** Format: date-time */
            created_at: string;
        };
        /** @description sector.created */
        SectorCreatedEvent: {
            /** Format: uuid */
            id: string;
            /**
             * Format: uuid
             * @description The sector's id
             */
            aggregate_id: string;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            event_type: "sector.created";
            /** @description The user who caused it; null for worker and system actions */
            actor_id: string | null;
            payload: components["schemas"]["SectorCreatedPayload"];
            /** @description When the event relay published it to the Redis stream; null until then */
            dispatched_at: string | null;
            /** Format: date-time */
            created_at: string;
        };
        /** @description The payload of sector.created */
        SectorCreatedPayload: {
            name: string;
            color: string;
        };
        SignInOptions: {
            /** @description Whether POST /identity/token takes passwords (HUB_PASSWORD_LOGIN) */
            password_login: boolean;
            /** @description Single sign-on, or null when it is not configured */
            sso: {
                /** @description HUB_OIDC_NAME: the console says "Sign in with <name>" */
                name: string;
            } | null;
        };
        /** @description A hub user; never a password or its hash */
        User: {
            /** Format: uuid */
            id: string;
            email: string;
            /** @enum {string} */
            role: "admin" | "employee";
            is_active: boolean;
            /** Format: date-time */
            created_at: string;
            /** @description The sectors an employee reaches; null: every sector */
            sector_ids: string[] | null;
        };
        /** @description user.created (admins only) */
        UserCreatedEvent: {
            /** Format: uuid */
            id: string;
            /**
             * Format: uuid
             * @description The user's id
             */
            aggregate_id: string;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            event_type: "user.created";
            /** @description The user who caused it; null for worker and system actions */
            actor_id: string | null;
            payload: components["schemas"]["UserCreatedPayload"];
            /** @description When the event relay published it to the Redis stream; null until then */
            dispatched_at: string | null;
            /** Format: date-time */
            created_at: string;
        };
        /** @description The payload of user.created */
        UserCreatedPayload: {
            email: string;
            /** @enum {string} */
            role: "admin" | "employee";
        };
        /** @description user.deactivated (admins only) */
        UserDeactivatedEvent: {
            /** Format: uuid */
            id: string;
            /**
             * Format: uuid
             * @description The user's id
             */
            aggregate_id: string;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            event_type: "user.deactivated";
            /** @description The user who caused it; null for worker and system actions */
            actor_id: string | null;
            payload: components["schemas"]["UserDeactivatedPayload"];
            /** @description When the event relay published it to the Redis stream; null until then */
            dispatched_at: string | null;
            /** Format: date-time */
            created_at: string;
        };
        /** @description The payload of user.deactivated */
        UserDeactivatedPayload: {
            email: string;
            /** @enum {string} */
            role: "admin" | "employee";
        };
        /** @description user.password_changed (admins only) */
        UserPasswordChangedEvent: {
            /** Format: uuid */
            id: string;
            /**
             * Format: uuid
             * @description The user's id
             */
            aggregate_id: string;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            event_type: "user.password_changed";
            /** @description The user who caused it; null for worker and system actions */
            actor_id: string | null;
            payload: components["schemas"]["UserPasswordChangedPayload"];
            /** @description When the event relay published it to the Redis stream; null until then */
            dispatched_at: string | null;
            /** Format: date-time */
            created_at: string;
        };
        /** @description The payload of user.password_changed */
        UserPasswordChangedPayload: {
            /** Format: uuid */
            user_id: string;
        };
        /** @description user.password_reset (admins only) */
        UserPasswordResetEvent: {
            /** Format: uuid */
            id: string;
            /**
             * Format: uuid
             * @description The user's id
             */
            aggregate_id: string;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            event_type: "user.password_reset";
            /** @description The user who caused it; null for worker and system actions */
            actor_id: string | null;
            payload: components["schemas"]["UserPasswordResetPayload"];
            /** @description When the event relay published it to the Redis stream; null until then */
            dispatched_at: string | null;
            /** Format: date-time */
            created_at: string;
        };
        /** @description The payload of user.password_reset */
        UserPasswordResetPayload: {
            /** Format: uuid */
            user_id: string;
        };
        /** @description user.reactivated (admins only) */
        UserReactivatedEvent: {
            /** Format: uuid */
            id: string;
            /**
             * Format: uuid
             * @description The user's id
             */
            aggregate_id: string;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            event_type: "user.reactivated";
            /** @description The user who caused it; null for worker and system actions */
            actor_id: string | null;
            payload: components["schemas"]["UserReactivatedPayload"];
            /** @description When the event relay published it to the Redis stream; null until then */
            dispatched_at: string | null;
            /** Format: date-time */
            created_at: string;
        };
        /** @description The payload of user.reactivated */
        UserReactivatedPayload: {
            /** Format: uuid */
            user_id: string;
        };
        /** @description user.role_changed (admins only) */
        UserRoleChangedEvent: {
            /** Format: uuid */
            id: string;
            /**
             * Format: uuid
             * @description The user's id
             */
            aggregate_id: string;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            event_type: "user.role_changed";
            /** @description The user who caused it; null for worker and system actions */
            actor_id: string | null;
            payload: components["schemas"]["UserRoleChangedPayload"];
            /** @description When the event relay published it to the Redis stream; null until then */
            dispatched_at: string | null;
            /** Format: date-time */
            created_at: string;
        };
        /** @description The payload of user.role_changed */
        UserRoleChangedPayload: {
            /** Format: uuid */
            user_id: string;
            /** @enum {string} */
            from: "admin" | "employee";
            /** @enum {string} */
            to: "admin" | "employee";
        };
        /** @description user.sectors_changed (admins only) */
        UserSectorsChangedEvent: {
            /** Format: uuid */
            id: string;
            /**
             * Format: uuid
             * @description The user's id
             */
            aggregate_id: string;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            event_type: "user.sectors_changed";
            /** @description The user who caused it; null for worker and system actions */
            actor_id: string | null;
            payload: components["schemas"]["UserSectorsChangedPayload"];
            /** @description When the event relay published it to the Redis stream; null until then */
            dispatched_at: string | null;
            /** Format: date-time */
            created_at: string;
        };
        /** @description The payload of user.sectors_changed */
        UserSectorsChangedPayload: {
            /** Format: uuid */
            user_id: string;
            /** @description null: every sector */
            from: string[] | null;
            /** @description null: every sector */
            to: string[] | null;
        };
        /** @description 422: every problem of the request at once, in FastAPI/pydantic v2's shape */
        ValidationError: {
            detail: components["schemas"]["ValidationIssue"][];
        };
        /** @description One problem: where (`loc`, from body, query, path or header), pydantic v2's `type`, and a sentence */
        ValidationIssue: {
            loc: (string | number)[];
            msg: string;
            type: string;
        };
        /** @description A subscription: events of these types are delivered to this URL, signed */
        Webhook: {
            /** Format: uuid */
            id: string;
            url: string;
            event_types: string[];
            description: string;
            /**
             * @description The body delivered: standard (the event record) or slack ({"text": …})
             * @enum {string}
             */
            format: "standard" | "slack";
            /**
             * @description `disabled` once its deliveries had failed for 24 h: nothing is delivered to it any more
             * @enum {string}
             */
            status: "active" | "disabled";
            /** Format: date-time */
            created_at: string;
            disabled_at: string | null;
            /** @description First failed attempt since the last delivered one; null while deliveries succeed */
            failing_since: string | null;
            /** @description After a rotation, until when deliveries are also signed with the replaced secret; null when none is */
            previous_secret_expires_at: string | null;
        };
        /** @description webhook.created (admins only) */
        WebhookCreatedEvent: {
            /** Format: uuid */
            id: string;
            /**
             * Format: uuid
             * @description The webhook's id
             */
            aggregate_id: string;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            event_type: "webhook.created";
            /** @description The user who caused it; null for worker and system actions */
            actor_id: string | null;
            payload: components["schemas"]["WebhookCreatedPayload"];
            /** @description When the event relay published it to the Redis stream; null until then */
            dispatched_at: string | null;
            /** Format: date-time */
            created_at: string;
        };
        /** @description The payload of webhook.created */
        WebhookCreatedPayload: {
            url: string;
            event_types: string[];
        };
        /** @description webhook.deleted (admins only) */
        WebhookDeletedEvent: {
            /** Format: uuid */
            id: string;
            /**
             * Format: uuid
             * @description The webhook's id
             */
            aggregate_id: string;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            event_type: "webhook.deleted";
            /** @description The user who caused it; null for worker and system actions */
            actor_id: string | null;
            payload: components["schemas"]["WebhookDeletedPayload"];
            /** @description When the event relay published it to the Redis stream; null until then */
            dispatched_at: string | null;
            /** Format: date-time */
            created_at: string;
        };
        /** @description The payload of webhook.deleted */
        WebhookDeletedPayload: {
            url: string;
            event_types: string[];
        };
        /** @description One event to deliver to one subscription, and how its attempts went */
        WebhookDelivery: {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            event_id: string;
            event_type: string;
            /** @enum {string} */
            status: "pending" | "delivered" | "failed";
            attempts: number;
            last_status_code: number | null;
            last_error: string | null;
            /** @description When the next attempt is due; null once delivered or failed */
            next_attempt_at: string | null;
            delivered_at: string | null;
            /** Format: date-time */
            created_at: string;
        };
        /** @description webhook.disabled (admins only) */
        WebhookDisabledEvent: {
            /** Format: uuid */
            id: string;
            /**
             * Format: uuid
             * @description The webhook's id
             */
            aggregate_id: string;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            event_type: "webhook.disabled";
            /** @description The user who caused it; null for worker and system actions */
            actor_id: string | null;
            payload: components["schemas"]["WebhookDisabledPayload"];
            /** @description When the event relay published it to the Redis stream; null until then */
            dispatched_at: string | null;
            /** Format: date-time */
            created_at: string;
        };
        /** @description The payload of webhook.disabled */
        WebhookDisabledPayload: {
            url: string;
            event_types: string[];
        };
        WebhookSecret: {
            /** Format: uuid */
            id: string;
            /** @description `whsec_` + base64 of 32 random bytes: shown this once, never again. Verify deliveries with it (Standard Webhooks). */
            secret: string;
        };
        /** @description `running` while it has called the hub within HUB_WORKER_TTL_SECONDS, else `stopped` */
        Worker: {
            cloud_instance_id: string;
            /** @enum {string} */
            status: "stopped" | "running";
            /** Format: date-time */
            created_at: string;
            /** @description When the worker last called the hub; null until it first does */
            last_seen_at: string | null;
        };
        /** @description worker.api_key_rotated */
        WorkerApiKeyRotatedEvent: {
            /** Format: uuid */
            id: string;
            /**
             * Format: uuid
             * @description The automation's id
             */
            aggregate_id: string;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            event_type: "worker.api_key_rotated";
            /** @description The user who caused it; null for worker and system actions */
            actor_id: string | null;
            payload: components["schemas"]["WorkerApiKeyRotatedPayload"];
            /** @description When the event relay published it to the Redis stream; null until then */
            dispatched_at: string | null;
            /** Format: date-time */
            created_at: string;
        };
        /** @description The payload of worker.api_key_rotated */
        WorkerApiKeyRotatedPayload: {
            /** Format: uuid */
            worker_id: string;
            cloud_instance_id: string;
        };
        WorkerCredentials: {
            /**
             * Format: uuid
             * @description The worker's id
             */
            id: string;
            /** @description Send it in the X-Worker-Api-Key header; it cannot be shown again */
            api_key: string;
        };
        /** @description worker.registered */
        WorkerRegisteredEvent: {
            /** Format: uuid */
            id: string;
            /**
             * Format: uuid
             * @description The automation's id
             */
            aggregate_id: string;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            event_type: "worker.registered";
            /** @description The user who caused it; null for worker and system actions */
            actor_id: string | null;
            payload: components["schemas"]["WorkerRegisteredPayload"];
            /** @description When the event relay published it to the Redis stream; null until then */
            dispatched_at: string | null;
            /** Format: date-time */
            created_at: string;
        };
        /** @description The payload of worker.registered */
        WorkerRegisteredPayload: {
            /** Format: uuid */
            worker_id: string;
            cloud_instance_id: string;
        };
        /** @description worker.status_changed */
        WorkerStatusChangedEvent: {
            /** Format: uuid */
            id: string;
            /**
             * Format: uuid
             * @description The automation's id
             */
            aggregate_id: string;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            event_type: "worker.status_changed";
            /** @description The user who caused it; null for worker and system actions */
            actor_id: string | null;
            payload: components["schemas"]["WorkerStatusChangedPayload"];
            /** @description When the event relay published it to the Redis stream; null until then */
            dispatched_at: string | null;
            /** Format: date-time */
            created_at: string;
        };
        /** @description The payload of worker.status_changed */
        WorkerStatusChangedPayload: {
            /** Format: uuid */
            worker_id: string;
            /** @enum {string} */
            from: "stopped" | "running";
            /** @enum {string} */
            to: "stopped" | "running";
        };
        /** @description worker.unregistered */
        WorkerUnregisteredEvent: {
            /** Format: uuid */
            id: string;
            /**
             * Format: uuid
             * @description The automation's id
             */
            aggregate_id: string;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            event_type: "worker.unregistered";
            /** @description The user who caused it; null for worker and system actions */
            actor_id: string | null;
            payload: components["schemas"]["WorkerUnregisteredPayload"];
            /** @description When the event relay published it to the Redis stream; null until then */
            dispatched_at: string | null;
            /** Format: date-time */
            created_at: string;
        };
        /** @description The payload of worker.unregistered */
        WorkerUnregisteredPayload: {
            /** Format: uuid */
            worker_id: string;
            cloud_instance_id: string;
        };
    };
    responses: {
        /** @description Missing, malformed, expired or revoked credentials (a worker key on a bearer endpoint, or a bearer token on a worker endpoint, too) */
        Unauthorized: {
            headers: {
                /** @description `Bearer`, on endpoints that take a bearer token */
                "WWW-Authenticate"?: string;
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["HTTPError"];
            };
        };
        /** @description Authenticated, but not allowed to do this (admins only; or a login token is needed, not an api key) */
        Forbidden: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["HTTPError"];
            };
        };
        /** @description The request body is over 1 MiB */
        PayloadTooLarge: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["HTTPError"];
            };
        };
        /** @description A non-empty request body that is not `application/json` or `application/*+json` (`Unsupported Media Type: send application/json`) */
        UnsupportedMediaType: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["HTTPError"];
            };
        };
        /** @description The request is invalid: every problem at once, in FastAPI/pydantic v2's shape (`loc` starts with body, query, path or header). Also for an unknown query parameter (`extra_forbidden`) and malformed JSON (`json_invalid`) */
        ValidationFailed: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ValidationError"];
            };
        };
        /** @description PostgreSQL or Redis is unreachable: `Service temporarily unavailable`. Nothing changed; the request may be repeated as it is */
        ServiceUnavailable: {
            headers: {
                /** @description Seconds to wait before retrying (2) */
                "Retry-After"?: number;
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["HTTPError"];
            };
        };
    };
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type AccessToken = components['schemas']['AccessToken'];
export type Alert = components['schemas']['Alert'];
export type AlertFiringEvent = components['schemas']['AlertFiringEvent'];
export type AlertFiringPayload = components['schemas']['AlertFiringPayload'];
export type AlertResolvedEvent = components['schemas']['AlertResolvedEvent'];
export type AlertResolvedPayload = components['schemas']['AlertResolvedPayload'];
export type AlertRule = components['schemas']['AlertRule'];
export type AlertRuleRequest = components['schemas']['AlertRuleRequest'];
export type ApiKey = components['schemas']['ApiKey'];
export type ApiKeyCreatedEvent = components['schemas']['ApiKeyCreatedEvent'];
export type ApiKeyCreatedPayload = components['schemas']['ApiKeyCreatedPayload'];
export type ApiKeyRevokedEvent = components['schemas']['ApiKeyRevokedEvent'];
export type ApiKeyRevokedPayload = components['schemas']['ApiKeyRevokedPayload'];
export type AppendJobLogsRequest = components['schemas']['AppendJobLogsRequest'];
export type AppendJobLogsResult = components['schemas']['AppendJobLogsResult'];
export type Approval = components['schemas']['Approval'];
export type ApprovalRequest = components['schemas']['ApprovalRequest'];
export type ApproveJobRequest = components['schemas']['ApproveJobRequest'];
export type Automation = components['schemas']['Automation'];
export type AutomationCreatedEvent = components['schemas']['AutomationCreatedEvent'];
export type AutomationCreatedPayload = components['schemas']['AutomationCreatedPayload'];
export type AutomationDeactivatedEvent = components['schemas']['AutomationDeactivatedEvent'];
export type AutomationDeactivatedPayload = components['schemas']['AutomationDeactivatedPayload'];
export type AutomationDevelopmentModeEnteredEvent = components['schemas']['AutomationDevelopmentModeEnteredEvent'];
export type AutomationDevelopmentModeEnteredPayload = components['schemas']['AutomationDevelopmentModeEnteredPayload'];
export type AutomationDevelopmentModeExitedEvent = components['schemas']['AutomationDevelopmentModeExitedEvent'];
export type AutomationDevelopmentModeExitedPayload = components['schemas']['AutomationDevelopmentModeExitedPayload'];
export type AutomationParameter = components['schemas']['AutomationParameter'];
export type AutomationStats = components['schemas']['AutomationStats'];
export type AutomationUpdatedEvent = components['schemas']['AutomationUpdatedEvent'];
export type AutomationUpdatedPayload = components['schemas']['AutomationUpdatedPayload'];
export type BulkActionResult = components['schemas']['BulkActionResult'];
export type BulkCancelRequest = components['schemas']['BulkCancelRequest'];
export type BulkRetryRequest = components['schemas']['BulkRetryRequest'];
export type ChangeOwnPasswordRequest = components['schemas']['ChangeOwnPasswordRequest'];
export type ChangeUserRequest = components['schemas']['ChangeUserRequest'];
export type ClaimedJob = components['schemas']['ClaimedJob'];
export type ClaimedJobBatch = components['schemas']['ClaimedJobBatch'];
export type ClaimJobBatchRequest = components['schemas']['ClaimJobBatchRequest'];
export type ClaimJobRequest = components['schemas']['ClaimJobRequest'];
export type CompleteAndClaimJobRequest = components['schemas']['CompleteAndClaimJobRequest'];
export type CompletedAndClaimedJobs = components['schemas']['CompletedAndClaimedJobs'];
export type CompleteJobBatchRequest = components['schemas']['CompleteJobBatchRequest'];
export type CompleteJobBatchResult = components['schemas']['CompleteJobBatchResult'];
export type CompleteJobRequest = components['schemas']['CompleteJobRequest'];
export type CreateApiKeyRequest = components['schemas']['CreateApiKeyRequest'];
export type CreateAutomationRequest = components['schemas']['CreateAutomationRequest'];
export type CreatedApiKey = components['schemas']['CreatedApiKey'];
export type CreatedId = components['schemas']['CreatedId'];
export type CreatedJobBatch = components['schemas']['CreatedJobBatch'];
export type CreateJobBatchItem = components['schemas']['CreateJobBatchItem'];
export type CreateJobBatchRequest = components['schemas']['CreateJobBatchRequest'];
export type CreateJobRequest = components['schemas']['CreateJobRequest'];
export type CreateSectorRequest = components['schemas']['CreateSectorRequest'];
export type CreateUserRequest = components['schemas']['CreateUserRequest'];
export type CreateWebhookRequest = components['schemas']['CreateWebhookRequest'];
export type Event = components['schemas']['Event'];
export type FailJobRequest = components['schemas']['FailJobRequest'];
export type Health = components['schemas']['Health'];
export type HeartbeatJobBatchRequest = components['schemas']['HeartbeatJobBatchRequest'];
export type HeartbeatJobBatchResult = components['schemas']['HeartbeatJobBatchResult'];
export type HeartbeatJobRequest = components['schemas']['HeartbeatJobRequest'];
export type HttpError = components['schemas']['HTTPError'];
export type Job = components['schemas']['Job'];
export type JobApprovalRequestedEvent = components['schemas']['JobApprovalRequestedEvent'];
export type JobApprovalRequestedPayload = components['schemas']['JobApprovalRequestedPayload'];
export type JobApprovedEvent = components['schemas']['JobApprovedEvent'];
export type JobApprovedPayload = components['schemas']['JobApprovedPayload'];
export type JobCancelledEvent = components['schemas']['JobCancelledEvent'];
export type JobCancelledPayload = components['schemas']['JobCancelledPayload'];
export type JobCompletedEvent = components['schemas']['JobCompletedEvent'];
export type JobCompletedPayload = components['schemas']['JobCompletedPayload'];
export type JobCreatedEvent = components['schemas']['JobCreatedEvent'];
export type JobCreatedPayload = components['schemas']['JobCreatedPayload'];
export type JobDependencies = components['schemas']['JobDependencies'];
export type JobDependency = components['schemas']['JobDependency'];
export type JobFailedEvent = components['schemas']['JobFailedEvent'];
export type JobFailedPayload = components['schemas']['JobFailedPayload'];
export type JobLogLine = components['schemas']['JobLogLine'];
export type JobNotLeasedError = components['schemas']['JobNotLeasedError'];
export type JobProgress = components['schemas']['JobProgress'];
export type JobRejectedEvent = components['schemas']['JobRejectedEvent'];
export type JobRejectedPayload = components['schemas']['JobRejectedPayload'];
export type JobRequeuedEvent = components['schemas']['JobRequeuedEvent'];
export type JobRequeuedPayload = components['schemas']['JobRequeuedPayload'];
export type JobRescheduledEvent = components['schemas']['JobRescheduledEvent'];
export type JobRescheduledPayload = components['schemas']['JobRescheduledPayload'];
export type JobStartedEvent = components['schemas']['JobStartedEvent'];
export type JobStartedPayload = components['schemas']['JobStartedPayload'];
export type KeyQueueDepth = components['schemas']['KeyQueueDepth'];
export type Lease = components['schemas']['Lease'];
export type LoginForm = components['schemas']['LoginForm'];
export type LoginRequest = components['schemas']['LoginRequest'];
export type MaintenanceWindow = components['schemas']['MaintenanceWindow'];
export type MaintenanceWindowCreatedEvent = components['schemas']['MaintenanceWindowCreatedEvent'];
export type MaintenanceWindowCreatedPayload = components['schemas']['MaintenanceWindowCreatedPayload'];
export type MaintenanceWindowDeletedEvent = components['schemas']['MaintenanceWindowDeletedEvent'];
export type MaintenanceWindowDeletedPayload = components['schemas']['MaintenanceWindowDeletedPayload'];
export type MaintenanceWindowEndedEvent = components['schemas']['MaintenanceWindowEndedEvent'];
export type MaintenanceWindowEndedPayload = components['schemas']['MaintenanceWindowEndedPayload'];
export type MaintenanceWindowRequest = components['schemas']['MaintenanceWindowRequest'];
export type MaintenanceWindowStartedEvent = components['schemas']['MaintenanceWindowStartedEvent'];
export type MaintenanceWindowStartedPayload = components['schemas']['MaintenanceWindowStartedPayload'];
export type MaintenanceWindowUpdatedEvent = components['schemas']['MaintenanceWindowUpdatedEvent'];
export type MaintenanceWindowUpdatedPayload = components['schemas']['MaintenanceWindowUpdatedPayload'];
export type NotReady = components['schemas']['NotReady'];
export type ProgressReport = components['schemas']['ProgressReport'];
export type RateLimit = components['schemas']['RateLimit'];
export type Readiness = components['schemas']['Readiness'];
export type RegisterWorkerRequest = components['schemas']['RegisterWorkerRequest'];
export type RejectJobRequest = components['schemas']['RejectJobRequest'];
export type ReplaceAutomationRequest = components['schemas']['ReplaceAutomationRequest'];
export type RescheduleJobRequest = components['schemas']['RescheduleJobRequest'];
export type ResetPasswordRequest = components['schemas']['ResetPasswordRequest'];
export type RetriedJob = components['schemas']['RetriedJob'];
export type RetryJobRequest = components['schemas']['RetryJobRequest'];
export type RotateWorkerApiKeyRequest = components['schemas']['RotateWorkerApiKeyRequest'];
export type Schedule = components['schemas']['Schedule'];
export type ScheduleCreatedEvent = components['schemas']['ScheduleCreatedEvent'];
export type ScheduleCreatedPayload = components['schemas']['ScheduleCreatedPayload'];
export type ScheduleDeletedEvent = components['schemas']['ScheduleDeletedEvent'];
export type ScheduleDeletedPayload = components['schemas']['ScheduleDeletedPayload'];
export type SchedulePreview = components['schemas']['SchedulePreview'];
export type ScheduleRequest = components['schemas']['ScheduleRequest'];
export type ScheduleSkippedEvent = components['schemas']['ScheduleSkippedEvent'];
export type ScheduleSkippedPayload = components['schemas']['ScheduleSkippedPayload'];
export type ScheduleUpdatedEvent = components['schemas']['ScheduleUpdatedEvent'];
export type ScheduleUpdatedPayload = components['schemas']['ScheduleUpdatedPayload'];
export type Sector = components['schemas']['Sector'];
export type SectorCreatedEvent = components['schemas']['SectorCreatedEvent'];
export type SectorCreatedPayload = components['schemas']['SectorCreatedPayload'];
export type SignInOptions = components['schemas']['SignInOptions'];
export type User = components['schemas']['User'];
export type UserCreatedEvent = components['schemas']['UserCreatedEvent'];
export type UserCreatedPayload = components['schemas']['UserCreatedPayload'];
export type UserDeactivatedEvent = components['schemas']['UserDeactivatedEvent'];
export type UserDeactivatedPayload = components['schemas']['UserDeactivatedPayload'];
export type UserPasswordChangedEvent = components['schemas']['UserPasswordChangedEvent'];
export type UserPasswordChangedPayload = components['schemas']['UserPasswordChangedPayload'];
export type UserPasswordResetEvent = components['schemas']['UserPasswordResetEvent'];
export type UserPasswordResetPayload = components['schemas']['UserPasswordResetPayload'];
export type UserReactivatedEvent = components['schemas']['UserReactivatedEvent'];
export type UserReactivatedPayload = components['schemas']['UserReactivatedPayload'];
export type UserRoleChangedEvent = components['schemas']['UserRoleChangedEvent'];
export type UserRoleChangedPayload = components['schemas']['UserRoleChangedPayload'];
export type UserSectorsChangedEvent = components['schemas']['UserSectorsChangedEvent'];
export type UserSectorsChangedPayload = components['schemas']['UserSectorsChangedPayload'];
export type ValidationError = components['schemas']['ValidationError'];
export type ValidationIssue = components['schemas']['ValidationIssue'];
export type Webhook = components['schemas']['Webhook'];
export type WebhookCreatedEvent = components['schemas']['WebhookCreatedEvent'];
export type WebhookCreatedPayload = components['schemas']['WebhookCreatedPayload'];
export type WebhookDeletedEvent = components['schemas']['WebhookDeletedEvent'];
export type WebhookDeletedPayload = components['schemas']['WebhookDeletedPayload'];
export type WebhookDelivery = components['schemas']['WebhookDelivery'];
export type WebhookDisabledEvent = components['schemas']['WebhookDisabledEvent'];
export type WebhookDisabledPayload = components['schemas']['WebhookDisabledPayload'];
export type WebhookSecret = components['schemas']['WebhookSecret'];
export type Worker = components['schemas']['Worker'];
export type WorkerApiKeyRotatedEvent = components['schemas']['WorkerApiKeyRotatedEvent'];
export type WorkerApiKeyRotatedPayload = components['schemas']['WorkerApiKeyRotatedPayload'];
export type WorkerCredentials = components['schemas']['WorkerCredentials'];
export type WorkerRegisteredEvent = components['schemas']['WorkerRegisteredEvent'];
export type WorkerRegisteredPayload = components['schemas']['WorkerRegisteredPayload'];
export type WorkerStatusChangedEvent = components['schemas']['WorkerStatusChangedEvent'];
export type WorkerStatusChangedPayload = components['schemas']['WorkerStatusChangedPayload'];
export type WorkerUnregisteredEvent = components['schemas']['WorkerUnregisteredEvent'];
export type WorkerUnregisteredPayload = components['schemas']['WorkerUnregisteredPayload'];
export type ResponseUnauthorized = components['responses']['Unauthorized'];
export type ResponseForbidden = components['responses']['Forbidden'];
export type ResponsePayloadTooLarge = components['responses']['PayloadTooLarge'];
export type ResponseUnsupportedMediaType = components['responses']['UnsupportedMediaType'];
export type ResponseValidationFailed = components['responses']['ValidationFailed'];
export type ResponseServiceUnavailable = components['responses']['ServiceUnavailable'];
export type $defs = Record<string, never>;
export interface operations {
    checkLiveness: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The process is alive */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Health"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
        };
    };
    checkReadiness: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Ready */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Readiness"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            /** @description PostgreSQL or Redis is down (named in `checks`); Retry-After is set */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NotReady"];
                };
            };
        };
    };
    listSectors: {
        parameters: {
            query?: {
                /** @description Most items on this page (1–1000, default 100) */
                limit?: number;
                /** @description Where to continue: copied from the previous page's `Link: <…>; rel="next"` header; opaque */
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Sectors, oldest first by (created_at, id). Present exactly when more items follow: `<the same path and query with cursor=…>; rel="next"` (RFC 8288, a path-absolute URL). */
            200: {
                headers: {
                    /** @description Present exactly when more items follow: `<the same path and query with cursor=…>; rel="next"` (RFC 8288, a path-absolute URL). */
                    Link?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Sector"][];
                };
            };
            401: components["responses"]["Unauthorized"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    createSector: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "name": "Finance",
                 *       "color": "#1F77B4"
                 *     }
                 */
                "application/json": components["schemas"]["CreateSectorRequest"];
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CreatedId"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description Name taken */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPError"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getSector: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                sector_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The sector */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Sector"];
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description Unknown sector */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPError"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    logIn: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "email": "ana@example.com",
                 *       "password": "correct horse battery staple"
                 *     }
                 */
                "application/json": components["schemas"]["LoginRequest"];
                "application/x-www-form-urlencoded": components["schemas"]["LoginForm"];
            };
        };
        responses: {
            /** @description An access token */
            200: {
                headers: {
                    /** @description `no-store`: the response carries a secret */
                    "Cache-Control"?: "no-store";
                    /** @description `no-cache` (RFC 6749 §5.1) */
                    Pragma?: "no-cache";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AccessToken"];
                };
            };
            /** @description Incorrect email or password (also for a deactivated user) */
            401: {
                headers: {
                    /** @description The authentication scheme to use: `Bearer` */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPError"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            /** @description Too many login attempts; try again later: see Retry-After */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPError"];
                };
            };
            /** @description Too busy hashing passwords to check this one in time: see Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPError"];
                };
            };
        };
    };
    getCurrentUser: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The caller */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["User"];
                };
            };
            401: components["responses"]["Unauthorized"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    changeOwnPassword: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "current_password": "correct horse battery staple",
                 *       "new_password": "a new long passphrase"
                 *     }
                 */
                "application/json": components["schemas"]["ChangeOwnPasswordRequest"];
            };
        };
        responses: {
            /** @description A token of the new credential generation */
            200: {
                headers: {
                    /** @description `no-store`: the response carries a secret */
                    "Cache-Control"?: "no-store";
                    /** @description `no-cache` (RFC 6749 §5.1) */
                    Pragma?: "no-cache";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AccessToken"];
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description Current password is incorrect (or an api key was sent) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPError"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            /** @description Too many login attempts; try again later: see Retry-After */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPError"];
                };
            };
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getSignInOptions: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The sign-in options */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SignInOptions"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    startSingleSignOn: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description To the identity provider (Location) */
            302: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Single sign-on is not configured */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPError"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            /** @description The identity provider has not been reached yet: see Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPError"];
                };
            };
        };
    };
    finishSingleSignOn: {
        parameters: {
            query?: {
                /** @description The authorization code */
                code?: string;
                /** @description The state GET /identity/oidc/login sent */
                state?: string;
                /** @description The provider's error code */
                error?: string;
                /** @description The provider's explanation */
                error_description?: string;
                /** @description The provider's error page */
                error_uri?: string;
                /** @description The issuer (RFC 9207) */
                iss?: string;
                /** @description The provider's session (some providers send it) */
                session_state?: string;
                /** @description The granted scopes (some providers send them) */
                scope?: string;
                /** @description Sent by Google */
                authuser?: string;
                /** @description Sent by Google */
                hd?: string;
                /** @description Sent by Google */
                prompt?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description To the console, with a one-time code in the fragment or the reason it failed */
            303: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Single sign-on is not configured */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPError"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    redeemSingleSignOnCode: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "code": "Vd1b…"
                 *     }
                 */
                "application/json": {
                    code: string;
                };
            };
        };
        responses: {
            /** @description An access token */
            200: {
                headers: {
                    /** @description `no-store`: the response carries a secret */
                    "Cache-Control"?: "no-store";
                    /** @description `no-cache` (RFC 6749 §5.1) */
                    Pragma?: "no-cache";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AccessToken"];
                };
            };
            /** @description Unknown, used or expired code */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPError"];
                };
            };
            /** @description Single sign-on is not configured */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPError"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    listUsers: {
        parameters: {
            query?: {
                /** @description Most items on this page (1–1000, default 100) */
                limit?: number;
                /** @description Where to continue: copied from the previous page's `Link: <…>; rel="next"` header; opaque */
                cursor?: string;
                /** @description Also list deactivated users (`is_active: false`) */
                include_inactive?: boolean;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Users, oldest first by (created_at, id). Present exactly when more items follow: `<the same path and query with cursor=…>; rel="next"` (RFC 8288, a path-absolute URL). */
            200: {
                headers: {
                    /** @description Present exactly when more items follow: `<the same path and query with cursor=…>; rel="next"` (RFC 8288, a path-absolute URL). */
                    Link?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["User"][];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    createUser: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "email": "ana@example.com",
                 *       "password": "correct horse battery staple",
                 *       "role": "employee"
                 *     }
                 */
                "application/json": components["schemas"]["CreateUserRequest"];
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CreatedId"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description E-mail taken, by an active or a deactivated user */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPError"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getUser: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                user_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The user */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["User"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description Unknown or deactivated user */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPError"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    deactivateUser: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                user_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deactivated; the user's tokens stop working at once */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Unauthorized"];
            /** @description An admin cannot deactivate their own account */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPError"];
                };
            };
            /** @description Unknown or already deactivated user */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPError"];
                };
            };
            /** @description It would leave the hub without an active admin */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPError"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    changeUserRole: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                user_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "role": "employee",
                 *       "sector_ids": [
                 *         "3f1e8c2a-9d11-4d4e-8d51-0b7a4a3e9f57"
                 *       ]
                 *     }
                 */
                "application/json": components["schemas"]["ChangeUserRequest"];
            };
        };
        responses: {
            /** @description The user, with its role and sectors */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["User"];
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description An admin cannot change their own role or sectors */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPError"];
                };
            };
            /** @description Unknown or deactivated user */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPError"];
                };
            };
            /** @description The demotion would leave the hub without an active admin */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPError"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    resetUserPassword: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                user_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "new_password": "a new long passphrase"
                 *     }
                 */
                "application/json": components["schemas"]["ResetPasswordRequest"];
            };
        };
        responses: {
            /** @description Reset */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Unauthorized"];
            /** @description Your own password: use PUT /identity/me/password */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPError"];
                };
            };
            /** @description Unknown or deactivated user */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPError"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    reactivateUser: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                user_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The user, active */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["User"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description Unknown user */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPError"];
                };
            };
            /** @description The user is already active */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPError"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    listApiKeys: {
        parameters: {
            query?: {
                /** @description Admins: that user's keys. Anyone else: only their own id */
                user_id?: string;
                /** @description Admins: every user's keys */
                all?: boolean;
                /** @description The key whose first 8 characters after "hub_" these are (a leaked key). Admins search every user's keys unless user_id is given */
                prefix?: unknown;
                /** @description Most items on this page (1–1000, default 100) */
                limit?: number;
                /** @description Where to continue: copied from the previous page's `Link: <…>; rel="next"` header; opaque */
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The caller's keys, newest first by (created_at, id); with an api key, that key only. Revoked keys are gone; expired ones stay until deleted. Present exactly when more items follow: `<the same path and query with cursor=…>; rel="next"` (RFC 8288, a path-absolute URL). */
            200: {
                headers: {
                    /** @description Present exactly when more items follow: `<the same path and query with cursor=…>; rel="next"` (RFC 8288, a path-absolute URL). */
                    Link?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiKey"][];
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description An employee asked for another user's keys or every user's */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPError"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    createApiKey: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "name": "nightly invoice export",
                 *       "expires_in_days": 30
                 *     }
                 */
                "application/json": components["schemas"]["CreateApiKeyRequest"];
            };
        };
        responses: {
            /** @description The key, shown this once: only its SHA-256 digest is kept */
            201: {
                headers: {
                    /** @description `no-store`: the response carries a secret */
                    "Cache-Control"?: "no-store";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CreatedApiKey"];
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description Authenticated with an api key: keys are created with a login token */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPError"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    revokeApiKey: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                api_key_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Revoked: the key stops working at once */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Unauthorized"];
            /** @description Authenticated with an api key, and this is another key */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPError"];
                };
            };
            /** @description Unknown, already deleted, or another user's key (admins may revoke any) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPError"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    listEvents: {
        parameters: {
            query?: {
                aggregate_id?: string;
                /** @description One event type of the catalogue (an unknown type matches nothing): sector.created, automation.created, automation.updated, automation.deactivated, automation.development_mode_entered, automation.development_mode_exited, worker.registered, worker.unregistered, worker.api_key_rotated, worker.status_changed, job.created, job.started, job.completed, job.failed, job.requeued, job.approval_requested, job.approved, job.rejected, job.cancelled, job.rescheduled, user.created, user.deactivated, user.password_changed, user.password_reset, user.role_changed, user.reactivated, user.sectors_changed, schedule.created, schedule.updated, schedule.deleted, schedule.skipped, maintenance_window.created, maintenance_window.updated, maintenance_window.deleted, maintenance_window.started, maintenance_window.ended, webhook.created, webhook.deleted, webhook.disabled, api_key.created, api_key.revoked, alert.firing, alert.resolved */
                event_type?: string;
                /** @description Only events about this kind of thing: job, automation (its worker's events too), sector, user, schedule, webhook, api_key */
                aggregate_type?: "sector" | "automation" | "job" | "user" | "schedule" | "maintenance_window" | "webhook" | "api_key" | "alert_rule";
                /** @description Inclusive lower bound on created_at */
                since?: string;
                /** @description Exclusive upper bound on created_at */
                until?: string;
                /** @description Most items on this page (1–1000, default 200) */
                limit?: number;
                /** @description Where to continue: copied from the previous page's `Link: <…>; rel="next"` header; opaque */
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Matching events, oldest first by (created_at, id). Employees never see user.*, webhook.* or api_key.* events (left out, not refused). Present exactly when more items follow: `<the same path and query with cursor=…>; rel="next"` (RFC 8288, a path-absolute URL). */
            200: {
                headers: {
                    /** @description Present exactly when more items follow: `<the same path and query with cursor=…>; rel="next"` (RFC 8288, a path-absolute URL). */
                    Link?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Event"][];
                };
            };
            401: components["responses"]["Unauthorized"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    streamEvents: {
        parameters: {
            query?: {
                aggregate_id?: string;
                /** @description One event type of the catalogue (an unknown type matches nothing): sector.created, automation.created, automation.updated, automation.deactivated, automation.development_mode_entered, automation.development_mode_exited, worker.registered, worker.unregistered, worker.api_key_rotated, worker.status_changed, job.created, job.started, job.completed, job.failed, job.requeued, job.approval_requested, job.approved, job.rejected, job.cancelled, job.rescheduled, user.created, user.deactivated, user.password_changed, user.password_reset, user.role_changed, user.reactivated, user.sectors_changed, schedule.created, schedule.updated, schedule.deleted, schedule.skipped, maintenance_window.created, maintenance_window.updated, maintenance_window.deleted, maintenance_window.started, maintenance_window.ended, webhook.created, webhook.deleted, webhook.disabled, api_key.created, api_key.revoked, alert.firing, alert.resolved */
                event_type?: string;
                /** @description Only events about this kind of thing: job, automation (its worker's events too), sector, user, schedule, webhook, api_key */
                aggregate_type?: "sector" | "automation" | "job" | "user" | "schedule" | "maintenance_window" | "webhook" | "api_key" | "alert_rule";
            };
            header?: {
                /** @description The `id` of the last message received: the stream first sends what followed it (at most 1000 events and 1 MiB, else a `reset` message), then the live events. Browsers' EventSource sends it when it reconnects. A value that is no stream entry id is read as absent (CONTRACT §6.15) */
                "last-event-id"?: unknown;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The stream, open until the client leaves, its credential stops being valid or the API shuts down. Messages: `id:` + `data:` (an Event, as JSON), `event: reset` (resuming was not possible), and `:` comments (heartbeats) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example retry: 2000
                     *     : connected
                     *
                     *     id: 1767225600000-0
                     *     data: {"id":"0b6f3c52-8c1e-4c3e-9d55-3f1b2a6f7e01","aggregate_id":"e67b45d3-2f0a-4d7b-9a43-6c1d1b0c9f10","event_type":"job.completed","actor_id":null,"payload":{"automation_id":"5b0c7a2e-1d3f-4e8a-b6c9-0a1b2c3d4e5f","worker_id":"9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b","result":{"rows":42}},"dispatched_at":null,"created_at":"2026-01-01T00:00:00.000Z"}
                     *
                     *     : heartbeat
                     */
                    "text/event-stream": string;
                };
            };
            401: components["responses"]["Unauthorized"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            /** @description Too many open streams: the caller's user already has 5 open (a request with Last-Event-ID takes the oldest one's place instead); see Retry-After */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPError"];
                };
            };
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    listAutomations: {
        parameters: {
            query?: {
                sector_id?: string;
                is_active?: boolean;
                /** @description Most items on this page (1–1000, default 100) */
                limit?: number;
                /** @description Where to continue: copied from the previous page's `Link: <…>; rel="next"` header; opaque */
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Matching automations, oldest first by (created_at, id). Present exactly when more items follow: `<the same path and query with cursor=…>; rel="next"` (RFC 8288, a path-absolute URL). */
            200: {
                headers: {
                    /** @description Present exactly when more items follow: `<the same path and query with cursor=…>; rel="next"` (RFC 8288, a path-absolute URL). */
                    Link?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Automation"][];
                };
            };
            401: components["responses"]["Unauthorized"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    createAutomation: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "name": "Invoice export",
                 *       "slug": "invoice-export",
                 *       "sector_id": "7b1e4d2c-5a9f-4e3b-8c6d-0f2a4b6c8d9e",
                 *       "description": "Exports a month's invoices to the ERP",
                 *       "parameters": [
                 *         {
                 *           "name": "month",
                 *           "description": "YYYY-MM"
                 *         }
                 *       ],
                 *       "max_concurrent_jobs": 2,
                 *       "max_attempts": 3,
                 *       "retry_backoff_seconds": 10,
                 *       "timeout_seconds": 3600
                 *     }
                 */
                "application/json": components["schemas"]["CreateAutomationRequest"];
            };
        };
        responses: {
            /** @description Created: active, not in development mode, no worker */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CreatedId"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description Slug taken */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPError"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getAutomation: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                automation_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The automation */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Automation"];
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description Unknown automation */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPError"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    replaceAutomation: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                automation_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "name": "Invoice export",
                 *       "description": "Exports a month's invoices to the ERP",
                 *       "sector_id": "7b1e4d2c-5a9f-4e3b-8c6d-0f2a4b6c8d9e",
                 *       "max_concurrent_jobs": 4,
                 *       "parameters": [
                 *         {
                 *           "name": "month",
                 *           "description": "YYYY-MM"
                 *         }
                 *       ]
                 *     }
                 */
                "application/json": components["schemas"]["ReplaceAutomationRequest"];
            };
        };
        responses: {
            /** @description The automation after the change */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Automation"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description Unknown automation */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPError"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    deactivateAutomation: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                automation_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Inactive */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description Unknown automation */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPError"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getAutomationStats: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                automation_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The automation's queue right now */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AutomationStats"];
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description Unknown automation */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPError"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    enterDevelopmentMode: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                automation_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description In development mode */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description Unknown automation */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPError"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    exitDevelopmentMode: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                automation_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Out of development mode */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description Unknown automation */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPError"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    registerWorker: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                automation_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "cloud_instance_id": "i-0abc123"
                 *     }
                 */
                "application/json": components["schemas"]["RegisterWorkerRequest"];
            };
        };
        responses: {
            /** @description Registered (status stopped until the worker calls the hub) */
            201: {
                headers: {
                    /** @description `no-store`: the response carries a secret */
                    "Cache-Control"?: "no-store";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WorkerCredentials"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description Unknown automation */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPError"];
                };
            };
            /** @description The automation is inactive or already has a registered worker */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPError"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    unregisterWorker: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                automation_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Unregistered */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description Unknown automation, or no registered worker */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPError"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    rotateWorkerApiKey: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                automation_id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "overlap_seconds": 300
                 *     }
                 */
                "application/json": components["schemas"]["RotateWorkerApiKeyRequest"];
            };
        };
        responses: {
            /** @description The new key, shown only in this response */
            200: {
                headers: {
                    /** @description `no-store`: the response carries a secret */
                    "Cache-Control"?: "no-store";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WorkerCredentials"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description Unknown automation, or no registered worker */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPError"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    claimJob: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "wait_seconds": 20
                 *     }
                 */
                "application/json": components["schemas"]["ClaimJobRequest"];
            };
        };
        responses: {
            /** @description The job, now running under a lease, with the trace context to run it in */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ClaimedJob"];
                };
            };
            /** @description No job became available within wait_seconds */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Unauthorized"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    claimJobBatch: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "max_jobs": 10,
                 *       "wait_seconds": 20
                 *     }
                 */
                "application/json": components["schemas"]["ClaimJobBatchRequest"];
            };
        };
        responses: {
            /** @description 1 to max_jobs jobs, now running under leases; never beyond max_concurrent_jobs */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ClaimedJobBatch"];
                };
            };
            /** @description No job became available within wait_seconds */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Unauthorized"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    completeJobBatch: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "items": [
                 *         {
                 *           "id": "c2d4e6f8-1a3b-4c5d-9e7f-8a0b2c4d6e8f",
                 *           "result": {
                 *             "rows": 42
                 *           },
                 *           "attempt": 1
                 *         }
                 *       ]
                 *     }
                 */
                "application/json": components["schemas"]["CompleteJobBatchRequest"];
            };
        };
        responses: {
            /** @description One result per item, in input order */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CompleteJobBatchResult"];
                };
            };
            401: components["responses"]["Unauthorized"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    heartbeatJobBatch: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "ids": [
                 *         "c2d4e6f8-1a3b-4c5d-9e7f-8a0b2c4d6e8f",
                 *         "e4f6a8b0-2c4d-4e6f-8a1b-3c5d7e9f0a2b"
                 *       ]
                 *     }
                 */
                "application/json": components["schemas"]["HeartbeatJobBatchRequest"];
            };
        };
        responses: {
            /** @description One result per id, in input order */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HeartbeatJobBatchResult"];
                };
            };
            401: components["responses"]["Unauthorized"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    heartbeatJob: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                job_id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "attempt": 1
                 *     }
                 */
                "application/json": components["schemas"]["HeartbeatJobRequest"];
            };
        };
        responses: {
            /** @description The new lease expiry */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Lease"];
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description Unknown job, or a job of another automation */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPError"];
                };
            };
            /** @description The job is not running under this worker's current lease (or not in the attempt named); nothing changed. `status` is the job's status now */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JobNotLeasedError"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    completeJob: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                job_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "result": {
                 *         "rows": 42
                 *       },
                 *       "attempt": 1
                 *     }
                 */
                "application/json": components["schemas"]["CompleteJobRequest"];
            };
        };
        responses: {
            /** @description The job, now completed */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Job"];
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description Unknown job, or a job of another automation */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPError"];
                };
            };
            /** @description The job is not running under this worker's current lease (or not in the attempt named); nothing changed. `status` is the job's status now */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JobNotLeasedError"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    completeJobAndClaimNext: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                job_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "result": {
                 *         "rows": 42
                 *       },
                 *       "attempt": 1,
                 *       "wait_seconds": 0
                 *     }
                 */
                "application/json": components["schemas"]["CompleteAndClaimJobRequest"];
            };
        };
        responses: {
            /** @description The completed job, and the next job now running under a lease (or null) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CompletedAndClaimedJobs"];
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description Unknown job, or a job of another automation */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPError"];
                };
            };
            /** @description The job is not running under this worker's current lease (or not in the attempt named); nothing changed. `status` is the job's status now */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JobNotLeasedError"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    failJob: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                job_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "error": "the ERP answered 503",
                 *       "retryable": true,
                 *       "attempt": 1
                 *     }
                 */
                "application/json": components["schemas"]["FailJobRequest"];
            };
        };
        responses: {
            /** @description The job: queued again after a retryable failure while attempts remain, else failed */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Job"];
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description Unknown job, or a job of another automation */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPError"];
                };
            };
            /** @description The job is not running under this worker's current lease (or not in the attempt named); nothing changed. `status` is the job's status now */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JobNotLeasedError"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getJobDependencies: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                job_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The job's dependencies */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JobDependencies"];
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description Unknown job, or a job of another automation */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPError"];
                };
            };
            /** @description The job is not running under this worker's current lease; `status` is the job's status now */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JobNotLeasedError"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    listJobs: {
        parameters: {
            query?: {
                automation_id?: string;
                /** @description One status or a comma-separated list of queued, running, completed, failed, cancelled */
                status?: ("queued" | "running" | "completed" | "failed" | "cancelled")[];
                /** @description Only jobs whose approval is in one of these statuses (pending, approved, rejected, expired, withdrawn), comma-separated; jobs without an approval never match */
                approval?: ("pending" | "approved" | "rejected" | "expired" | "withdrawn")[];
                /** @description Inclusive lower bound on created_at (RFC 3339) */
                created_after?: string;
                /** @description Exclusive upper bound on created_at (RFC 3339) */
                created_before?: string;
                /** @description Only jobs whose priority is at least this */
                priority_min?: number;
                /** @description true: only queued jobs whose available_at is still ahead (a run_at or a retry back-off); false: every other job */
                scheduled?: boolean;
                /** @description Only the jobs this schedule created */
                schedule_id?: string;
                /** @description Only the jobs that list this job in their depends_on: its dependents */
                depends_on?: string;
                /** @description Only the jobs this user created */
                created_by?: string;
                /** @description Only the retries of this job (POST /jobs/{job_id}/retry or bulk-retry): the jobs whose retry_of is this id */
                retry_of?: string;
                /** @description Inclusive lower bound on finished_at (RFC 3339); unfinished jobs never match */
                finished_after?: string;
                /** @description Exclusive upper bound on finished_at (RFC 3339); unfinished jobs never match */
                finished_before?: string;
                /** @description Only jobs whose error contains this text, ignoring case (1–100 characters) */
                error_contains?: string;
                /** @description Context filters, up to 5, and-ed: `context[<name>]=<value>` (or `context.<name>=<value>`) keeps the jobs whose context has the top-level key <name> (1–100 characters; never checked against the automation's parameters) with the string <value>, case-sensitive; numbers, booleans and objects never match */
                context?: {
                    [key: string]: string;
                };
                /** @description Most items on this page (1–1000, default 100) */
                limit?: number;
                /** @description Where to continue: copied from the previous page's `Link: <…>; rel="next"` header; opaque */
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Matching jobs, newest first by (created_at, id). Present exactly when more items follow: `<the same path and query with cursor=…>; rel="next"` (RFC 8288, a path-absolute URL). */
            200: {
                headers: {
                    /** @description Present exactly when more items follow: `<the same path and query with cursor=…>; rel="next"` (RFC 8288, a path-absolute URL). */
                    Link?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Job"][];
                };
            };
            401: components["responses"]["Unauthorized"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    createJob: {
        parameters: {
            query?: never;
            header?: {
                /** @description The same key from the same user within 24 h returns the first request's id(s) (200) and creates nothing */
                "idempotency-key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "automation_id": "3f6c2a9e-8d1b-4c5e-9a7f-2b4d6e8f0a1c",
                 *       "context": {
                 *         "month": "2026-10"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["CreateJobRequest"];
            };
        };
        responses: {
            /** @description An earlier request with the same Idempotency-Key created this job; nothing new was created */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CreatedId"];
                };
            };
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CreatedId"];
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description The automation is deactivated */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPError"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    createJobBatch: {
        parameters: {
            query?: never;
            header?: {
                /** @description The same key from the same user within 24 h returns the first request's id(s) (200) and creates nothing */
                "idempotency-key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "jobs": [
                 *         {
                 *           "automation_id": "3f6c2a9e-8d1b-4c5e-9a7f-2b4d6e8f0a1c",
                 *           "context": {
                 *             "month": "2026-10"
                 *           }
                 *         },
                 *         {
                 *           "automation_id": "3f6c2a9e-8d1b-4c5e-9a7f-2b4d6e8f0a1c",
                 *           "context": {
                 *             "month": "2026-11"
                 *           }
                 *         }
                 *       ]
                 *     }
                 */
                "application/json": components["schemas"]["CreateJobBatchRequest"];
            };
        };
        responses: {
            /** @description An earlier request with the same Idempotency-Key created these jobs; nothing new was created */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CreatedJobBatch"];
                };
            };
            /** @description Created, ids in input order */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CreatedJobBatch"];
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description An automation is deactivated; nothing was created */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPError"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    bulkCancelJobs: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "automation_id": "3f6c2a9e-8d1b-4c5e-9a7f-2b4d6e8f0a1c",
                 *       "status": [
                 *         "queued"
                 *       ],
                 *       "dry_run": true
                 *     }
                 */
                "application/json": components["schemas"]["BulkCancelRequest"];
            };
        };
        responses: {
            /** @description What matched and what was cancelled; each cancelled job has its job.cancelled event (reason cancelled_by_user). Works in batches of 500 jobs, each its own transaction; jobs that finished meanwhile are skipped */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BulkActionResult"];
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description Only admins run bulk actions */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPError"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    bulkRetryJobs: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "automation_id": "3f6c2a9e-8d1b-4c5e-9a7f-2b4d6e8f0a1c",
                 *       "status": [
                 *         "failed"
                 *       ],
                 *       "created_after": "2026-10-01T00:00:00Z"
                 *     }
                 */
                "application/json": components["schemas"]["BulkRetryRequest"];
            };
        };
        responses: {
            /** @description What matched and which jobs were retried: each gets a new queued job with retry_of = its id and a job.created event. Works in batches of 500 jobs; jobs whose status changed meanwhile, or whose automation is deactivated, are skipped */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BulkActionResult"];
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description Only admins run bulk actions */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPError"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getJob: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                job_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The job */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Job"];
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description Unknown job */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPError"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    cancelJob: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                job_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The job, now cancelled */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Job"];
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description An employee may cancel only the jobs it created */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPError"];
                };
            };
            /** @description Unknown job */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPError"];
                };
            };
            /** @description The job has already finished */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPError"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    rescheduleJob: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                job_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "run_at": "2026-12-24T06:00:00Z",
                 *       "priority": 50
                 *     }
                 */
                "application/json": components["schemas"]["RescheduleJobRequest"];
            };
        };
        responses: {
            /** @description The job after the change, with its waiting_reason and queue_position */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Job"];
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description An employee may reschedule only the jobs it created */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPError"];
                };
            };
            /** @description Unknown job */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPError"];
                };
            };
            /** @description The job is not queued (running or finished): there is nothing to reschedule */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPError"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    retryJob: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                job_id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "context": {
                 *         "month": "2026-10",
                 *         "region": "eu"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["RetryJobRequest"];
            };
        };
        responses: {
            /** @description The new job's id; its job.created event carries retry_of (and context_changed with a body's context). With with_dependents, also `ids`: every job created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RetriedJob"];
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description An employee may retry only the jobs it created */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPError"];
                };
            };
            /** @description Unknown job */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPError"];
                };
            };
            /** @description The job is not failed or cancelled, or its automation is deactivated */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPError"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    approveJob: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                job_id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "comment": "Checked the amounts"
                 *     }
                 */
                "application/json": components["schemas"]["ApproveJobRequest"];
            };
        };
        responses: {
            /** @description The job, approval.status approved */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Job"];
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description The caller created the job, or is neither an admin nor one of the automation's approvers */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPError"];
                };
            };
            /** @description Unknown job */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPError"];
                };
            };
            /** @description The job's approval is not pending (decided, expired, withdrawn, or it has none) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPError"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    rejectJob: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                job_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "comment": "Wrong month"
                 *     }
                 */
                "application/json": components["schemas"]["RejectJobRequest"];
            };
        };
        responses: {
            /** @description The job, now cancelled, approval.status rejected */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Job"];
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description The caller created the job, or is neither an admin nor one of the automation's approvers */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPError"];
                };
            };
            /** @description Unknown job */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPError"];
                };
            };
            /** @description The job's approval is not pending (decided, expired, withdrawn, or it has none) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPError"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    listApprovals: {
        parameters: {
            query?: {
                /** @description Most items on this page (1–1000, default 100) */
                limit?: number;
                /** @description Where to continue: copied from the previous page's `Link: <…>; rel="next"` header; opaque */
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Pending approvals, oldest first by (created_at, id). Present exactly when more items follow: `<the same path and query with cursor=…>; rel="next"` (RFC 8288, a path-absolute URL). */
            200: {
                headers: {
                    /** @description Present exactly when more items follow: `<the same path and query with cursor=…>; rel="next"` (RFC 8288, a path-absolute URL). */
                    Link?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApprovalRequest"][];
                };
            };
            401: components["responses"]["Unauthorized"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    listJobLogs: {
        parameters: {
            query?: {
                /** @description Only the lines of this attempt */
                attempt?: number;
                /** @description Only lines of this level and above (debug < info < warn < error) */
                level?: "debug" | "info" | "warn" | "error";
                /** @description Most items on this page (1–1000, default 100) */
                limit?: number;
                /** @description Where to continue: copied from the previous page's `Link: <…>; rel="next"` header; opaque */
                cursor?: string;
            };
            header?: never;
            path: {
                job_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The lines, by seq. Present exactly when more items follow: `<the same path and query with cursor=…>; rel="next"` (RFC 8288, a path-absolute URL). */
            200: {
                headers: {
                    /** @description Present exactly when more items follow: `<the same path and query with cursor=…>; rel="next"` (RFC 8288, a path-absolute URL). */
                    Link?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JobLogLine"][];
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description Unknown job */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPError"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    appendJobLogs: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                job_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "lines": [
                 *         {
                 *           "message": "read 1200 rows",
                 *           "level": "info"
                 *         },
                 *         {
                 *           "message": "row 17: missing VAT number",
                 *           "level": "warn",
                 *           "ts": "2026-11-26T10:00:01.250Z"
                 *         }
                 *       ],
                 *       "attempt": 1
                 *     }
                 */
                "application/json": components["schemas"]["AppendJobLogsRequest"];
            };
        };
        responses: {
            /** @description What was stored */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppendJobLogsResult"];
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description Unknown job, or a job of another automation */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPError"];
                };
            };
            /** @description The job is not running under this worker's current lease (or not in the attempt named); nothing was stored. `status` is the job's status now */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JobNotLeasedError"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    streamJobLogs: {
        parameters: {
            query?: {
                /** @description Only lines of this level and above (debug < info < warn < error) */
                level?: "debug" | "info" | "warn" | "error";
            };
            header?: {
                /** @description The `id` of the last message received: a seq, and the stream starts with the lines after it; or `end`, and the answer is 204 (the client already saw `event: end`). Browsers' EventSource sends it when it reconnects. Any other value is read as absent */
                "last-event-id"?: string;
            };
            path: {
                job_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The stream, open until the job finished (after `event: end`), the client leaves, its credential stops being valid or the API shuts down. Messages: `id:` + `data:` (a JobLogLine), `event: progress` (a JobProgress or null), `id: end` + `event: end` (`{status}`), and `:` comments (heartbeats) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example retry: 2000
                     *     : connected
                     *
                     *     id: 1
                     *     data: {"seq":1,"ts":"2026-11-26T10:00:00.000Z","level":"info","message":"read 1200 rows","attempt":1}
                     *
                     *     event: progress
                     *     data: {"percent":40,"message":"reading rows","updated_at":"2026-11-26T10:00:01.000Z"}
                     *
                     *     id: end
                     *     event: end
                     *     data: {"status":"completed"}
                     */
                    "text/event-stream": string;
                };
            };
            /** @description `Last-Event-ID: end`: the client already received `event: end`; nothing follows (a standard EventSource stops reconnecting on a 204) */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Unauthorized"];
            /** @description Unknown job */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPError"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            /** @description Too many open streams: the caller's user already has 5 open on this path (a request with Last-Event-ID takes the oldest one's place instead); see Retry-After */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPError"];
                };
            };
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    listAutomationSchedules: {
        parameters: {
            query?: {
                /** @description Only enabled (true) or disabled (false) schedules */
                enabled?: boolean;
                /** @description Most items on this page (1–1000, default 100) */
                limit?: number;
                /** @description Where to continue: copied from the previous page's `Link: <…>; rel="next"` header; opaque */
                cursor?: string;
            };
            header?: never;
            path: {
                automation_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The automation's schedules, oldest first by (created_at, id). Present exactly when more items follow: `<the same path and query with cursor=…>; rel="next"` (RFC 8288, a path-absolute URL). */
            200: {
                headers: {
                    /** @description Present exactly when more items follow: `<the same path and query with cursor=…>; rel="next"` (RFC 8288, a path-absolute URL). */
                    Link?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Schedule"][];
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description Unknown automation */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPError"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    createSchedule: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                automation_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "cron": "0 6 * * MON-FRI",
                 *       "timezone": "Europe/Berlin",
                 *       "context": {
                 *         "month": "current"
                 *       },
                 *       "key": "weekday-export"
                 *     }
                 */
                "application/json": components["schemas"]["ScheduleRequest"];
            };
        };
        responses: {
            /** @description Created; its first fire is the next fire time after now (when enabled) */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CreatedId"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description Unknown automation */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPError"];
                };
            };
            /** @description The automation is deactivated, or it already has a schedule with this key */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPError"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    listSchedules: {
        parameters: {
            query?: {
                /** @description Only this automation's schedules */
                automation_id?: string;
                /** @description Only enabled (true) or disabled (false) schedules */
                enabled?: boolean;
                /** @description Most items on this page (1–1000, default 100) */
                limit?: number;
                /** @description Where to continue: copied from the previous page's `Link: <…>; rel="next"` header; opaque */
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Matching schedules, oldest first by (created_at, id). Present exactly when more items follow: `<the same path and query with cursor=…>; rel="next"` (RFC 8288, a path-absolute URL). */
            200: {
                headers: {
                    /** @description Present exactly when more items follow: `<the same path and query with cursor=…>; rel="next"` (RFC 8288, a path-absolute URL). */
                    Link?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Schedule"][];
                };
            };
            401: components["responses"]["Unauthorized"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    previewSchedule: {
        parameters: {
            query: {
                /** @description Five fields: minute hour day-of-month month day-of-week (numbers, JAN–DEC and SUN–SAT, `*`, ranges `1-5`, lists `1,15`, steps `*\/15` and `0-30/10`; 0 and 7 are Sunday; with day-of-month and day-of-week both restricted, either matches), or one of @yearly, @annually, @monthly, @weekly, @daily, @midnight, @hourly. A leading seconds field only where the hub sets HUB_SCHEDULES_ALLOW_SECONDS=true. Returned as sent. */
                cron: string;
                /** @description IANA time zone the expression is read in (any name Intl.DateTimeFormat accepts), returned exactly as sent. A fixed time of day that does not exist on a DST day fires when the clocks spring forward; one that occurs twice fires once, at the first. */
                timezone?: string;
                /** @description How many fire times to list (1–20, default 5) */
                count?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The next fire times, in UTC */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SchedulePreview"];
                };
            };
            401: components["responses"]["Unauthorized"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getSchedule: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                schedule_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The schedule */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Schedule"];
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description Unknown or deleted schedule */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPError"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    replaceSchedule: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                schedule_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "cron": "0 6 * * MON-FRI",
                 *       "timezone": "Europe/Berlin",
                 *       "context": {
                 *         "month": "current"
                 *       },
                 *       "key": "weekday-export"
                 *     }
                 */
                "application/json": components["schemas"]["ScheduleRequest"];
            };
        };
        responses: {
            /** @description The schedule after the change */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Schedule"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description Unknown or deleted schedule */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPError"];
                };
            };
            /** @description enabled: true on a deactivated automation, or another schedule of the automation has this key */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPError"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    deleteSchedule: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                schedule_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted; its key is free again */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description Unknown or already deleted schedule */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPError"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    listMaintenanceWindows: {
        parameters: {
            query?: {
                /** @description Only windows scoped to this automation */
                automation_id?: string;
                /** @description Only windows scoped to this sector */
                sector_id?: string;
                /** @description Only windows in effect now (true) or not (false) */
                active?: boolean;
                /** @description Most items on this page (1–1000, default 100) */
                limit?: number;
                /** @description Where to continue: copied from the previous page's `Link: <…>; rel="next"` header; opaque */
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Matching windows, oldest first by (created_at, id). Present exactly when more items follow: `<the same path and query with cursor=…>; rel="next"` (RFC 8288, a path-absolute URL). */
            200: {
                headers: {
                    /** @description Present exactly when more items follow: `<the same path and query with cursor=…>; rel="next"` (RFC 8288, a path-absolute URL). */
                    Link?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MaintenanceWindow"][];
                };
            };
            401: components["responses"]["Unauthorized"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    createMaintenanceWindow: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "sector_id": "9b2e6c1d-7a4f-4e0b-8c3d-2f1a5e6b7c8d",
                 *       "starts_at": "2026-12-12T22:00:00+01:00",
                 *       "ends_at": "2026-12-13T04:00:00+01:00",
                 *       "drain": true
                 *     }
                 */
                "application/json": components["schemas"]["MaintenanceWindowRequest"];
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CreatedId"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getMaintenanceWindow: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                window_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The window */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MaintenanceWindow"];
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description Unknown or deleted window */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPError"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    replaceMaintenanceWindow: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                window_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "sector_id": "9b2e6c1d-7a4f-4e0b-8c3d-2f1a5e6b7c8d",
                 *       "starts_at": "2026-12-12T22:00:00+01:00",
                 *       "ends_at": "2026-12-13T02:00:00+01:00"
                 *     }
                 */
                "application/json": components["schemas"]["MaintenanceWindowRequest"];
            };
        };
        responses: {
            /** @description The window after the change */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MaintenanceWindow"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description Unknown or deleted window */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPError"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    deleteMaintenanceWindow: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                window_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description Unknown or already deleted window */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPError"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    listWebhooks: {
        parameters: {
            query?: {
                /** @description Most items on this page (1–1000, default 100) */
                limit?: number;
                /** @description Where to continue: copied from the previous page's `Link: <…>; rel="next"` header; opaque */
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Subscriptions, oldest first by (created_at, id). Present exactly when more items follow: `<the same path and query with cursor=…>; rel="next"` (RFC 8288, a path-absolute URL). */
            200: {
                headers: {
                    /** @description Present exactly when more items follow: `<the same path and query with cursor=…>; rel="next"` (RFC 8288, a path-absolute URL). */
                    Link?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Webhook"][];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    createWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "url": "https://hooks.example.com/hub",
                 *       "event_types": [
                 *         "job.failed",
                 *         "worker.status_changed"
                 *       ],
                 *       "description": "Alert the on-call channel"
                 *     }
                 */
                "application/json": components["schemas"]["CreateWebhookRequest"];
            };
        };
        responses: {
            /** @description Created; keep the secret */
            201: {
                headers: {
                    /** @description `no-store`: the response carries a secret */
                    "Cache-Control"?: "no-store";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookSecret"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            /** @description HUB_WEBHOOK_ENCRYPTION_KEY is not set on this hub */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPError"];
                };
            };
        };
    };
    getWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                webhook_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The subscription */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Webhook"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description Unknown or deleted subscription */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPError"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    deleteWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                webhook_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description Unknown or already deleted subscription */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPError"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    rotateWebhookSecret: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                webhook_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The new secret */
            200: {
                headers: {
                    /** @description `no-store`: the response carries a secret */
                    "Cache-Control"?: "no-store";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookSecret"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description Unknown or deleted subscription */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPError"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            /** @description HUB_WEBHOOK_ENCRYPTION_KEY is not set on this hub */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPError"];
                };
            };
        };
    };
    listWebhookDeliveries: {
        parameters: {
            query?: {
                /** @description Most items on this page (1–1000, default 100) */
                limit?: number;
                /** @description Where to continue: copied from the previous page's `Link: <…>; rel="next"` header; opaque */
                cursor?: string;
            };
            header?: never;
            path: {
                webhook_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deliveries, newest first by (created_at, id). Present exactly when more items follow: `<the same path and query with cursor=…>; rel="next"` (RFC 8288, a path-absolute URL). */
            200: {
                headers: {
                    /** @description Present exactly when more items follow: `<the same path and query with cursor=…>; rel="next"` (RFC 8288, a path-absolute URL). */
                    Link?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookDelivery"][];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description Unknown or deleted subscription */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPError"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    redeliverWebhookDelivery: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                webhook_id: string;
                delivery_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Queued for delivery */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description Unknown subscription or delivery */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPError"];
                };
            };
            /** @description The subscription is disabled */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPError"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    listAlertRules: {
        parameters: {
            query?: {
                /** @description Only the rules of this automation (rules for every automation are left out) */
                automation_id?: string;
                kind?: "queue_age" | "queue_depth" | "failure_rate" | "worker_offline" | "job_duration";
                /** @description Most items on this page (1–1000, default 100) */
                limit?: number;
                /** @description Where to continue: copied from the previous page's `Link: <…>; rel="next"` header; opaque */
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Rules, oldest first by (created_at, id). Present exactly when more items follow: `<the same path and query with cursor=…>; rel="next"` (RFC 8288, a path-absolute URL). */
            200: {
                headers: {
                    /** @description Present exactly when more items follow: `<the same path and query with cursor=…>; rel="next"` (RFC 8288, a path-absolute URL). */
                    Link?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AlertRule"][];
                };
            };
            401: components["responses"]["Unauthorized"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    createAlertRule: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "automation_id": "9b2e6c1d-7a4f-4e0b-8c3d-2f1a5e6b7c8d",
                 *       "kind": "queue_age",
                 *       "threshold": 600,
                 *       "for_seconds": 60,
                 *       "description": "Invoices wait"
                 *     }
                 */
                "application/json": components["schemas"]["AlertRuleRequest"];
            };
        };
        responses: {
            /** @description Created; evaluated from the next round */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CreatedId"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getAlertRule: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                rule_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The rule */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AlertRule"];
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description Unknown rule */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPError"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    replaceAlertRule: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                rule_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "automation_id": "9b2e6c1d-7a4f-4e0b-8c3d-2f1a5e6b7c8d",
                 *       "kind": "queue_age",
                 *       "threshold": 600,
                 *       "for_seconds": 60,
                 *       "description": "Invoices wait"
                 *     }
                 */
                "application/json": components["schemas"]["AlertRuleRequest"];
            };
        };
        responses: {
            /** @description The rule after the change */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AlertRule"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description Unknown rule */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPError"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    deleteAlertRule: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                rule_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description Unknown rule */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPError"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    listAlerts: {
        parameters: {
            query?: {
                /** @description firing (the default): the alerts firing now, oldest first; resolved: their history, newest first */
                state?: "firing" | "resolved";
                /** @description Only the alerts about this automation */
                automation_id?: string;
                /** @description Most items on this page (1–1000, default 100) */
                limit?: number;
                /** @description Where to continue: copied from the previous page's `Link: <…>; rel="next"` header; opaque */
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Alerts. Present exactly when more items follow: `<the same path and query with cursor=…>; rel="next"` (RFC 8288, a path-absolute URL). */
            200: {
                headers: {
                    /** @description Present exactly when more items follow: `<the same path and query with cursor=…>; rel="next"` (RFC 8288, a path-absolute URL). */
                    Link?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Alert"][];
                };
            };
            401: components["responses"]["Unauthorized"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    streamWorkerSignals: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The stream, open until the worker leaves, its key stops being valid or the API shuts down. Messages: `event: cancel` and `:` comments (heartbeats) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example retry: 2000
                     *     : connected
                     *
                     *     event: cancel
                     *     data: {"job_id":"c2d4e6f8-1a3b-4c5d-9e7f-8a0b2c4d6e8f","attempt":1,"reason":"cancelled_by_user"}
                     *
                     *     : heartbeat
                     */
                    "text/event-stream": string;
                };
            };
            401: components["responses"]["Unauthorized"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            /** @description Too many open streams for this worker key (HUB_WORKER_MAX_STREAMS); see Retry-After */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPError"];
                };
            };
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    markWorkerOffline: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done (stopped, or left running while a signals stream is open) */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Unauthorized"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getOpenApiDocument: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The document */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": Record<string, never>;
                };
            };
            422: components["responses"]["ValidationFailed"];
        };
    };
    getMetrics: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The metrics */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
            /** @description HUB_METRICS_TOKEN is set and the request does not carry it */
            401: {
                headers: {
                    /** @description The authentication scheme to use: `Bearer` */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPError"];
                };
            };
        };
    };
}
