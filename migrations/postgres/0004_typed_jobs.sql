-- Typed work. A job is a kind of work with JSON arguments; a webhook delivery is one kind
-- (`webhook`, whose arguments are its stored delivery). `unique_key` makes scheduled work exist
-- once (one catch-up pass per slot, one nightly run per repository and day), whatever the number
-- of replicas; `replica` names the process holding a running job, so a dead one's jobs are
-- released as soon as its heartbeat lapses instead of when their leases end.
ALTER TABLE jobs ADD COLUMN kind TEXT NOT NULL DEFAULT 'webhook';
ALTER TABLE jobs ADD COLUMN args TEXT;
ALTER TABLE jobs ADD COLUMN unique_key TEXT;
ALTER TABLE jobs ADD COLUMN replica TEXT;
ALTER TABLE jobs ALTER COLUMN delivery_id DROP NOT NULL;
CREATE UNIQUE INDEX jobs_unique ON jobs (unique_key);

-- Live processes: each beats every few seconds while it runs.
CREATE TABLE replicas (
    id           TEXT PRIMARY KEY,
    started_ms   BIGINT NOT NULL,
    heartbeat_ms BIGINT NOT NULL
);

-- Pruning deliveries by age.
CREATE INDEX deliveries_received ON deliveries (received_at_ms);
