-- Typed work. A job is a kind of work with JSON arguments; a webhook delivery is one kind
-- (`webhook`, whose arguments are its stored delivery). `unique_key` makes scheduled work exist
-- once (one catch-up pass per slot, one nightly run per repository and day), whatever the number
-- of replicas; `replica` names the process holding a running job, so a dead one's jobs are
-- released as soon as its heartbeat lapses instead of when their leases end.
-- SQLite cannot drop NOT NULL from `delivery_id`, so the table is rebuilt with its rows.
DROP TRIGGER deliveries_enqueue;

CREATE TABLE jobs_typed (
    id             INTEGER PRIMARY KEY,
    kind           TEXT NOT NULL,
    args           TEXT,
    delivery_id    TEXT REFERENCES deliveries(delivery_id),
    event          TEXT NOT NULL,
    action         TEXT,
    serial_key     TEXT NOT NULL,
    unique_key     TEXT,
    state          TEXT NOT NULL CHECK (state IN ('queued', 'running', 'done', 'dead')),
    attempts       INTEGER NOT NULL DEFAULT 0,
    run_at_ms      INTEGER NOT NULL,
    lease_owner    TEXT,
    lease_until_ms INTEGER,
    replica        TEXT,
    last_error     TEXT,
    created_at_ms  INTEGER NOT NULL,
    updated_at_ms  INTEGER NOT NULL
);

INSERT INTO jobs_typed (id, kind, args, delivery_id, event, action, serial_key, unique_key, state,
                        attempts, run_at_ms, lease_owner, lease_until_ms, replica, last_error,
                        created_at_ms, updated_at_ms)
SELECT id, 'webhook', NULL, delivery_id, event, action, serial_key, NULL, state, attempts, run_at_ms,
       lease_owner, lease_until_ms, NULL, last_error, created_at_ms, updated_at_ms
FROM jobs;

DROP TABLE jobs;
ALTER TABLE jobs_typed RENAME TO jobs;

CREATE INDEX jobs_ready ON jobs (state, run_at_ms, id);
CREATE INDEX jobs_serial_running ON jobs (serial_key, state);
CREATE INDEX jobs_delivery ON jobs (delivery_id);
CREATE UNIQUE INDEX jobs_unique ON jobs (unique_key);

CREATE TRIGGER deliveries_enqueue AFTER INSERT ON deliveries
WHEN NEW.serial_key IS NOT NULL
BEGIN
    INSERT INTO jobs (kind, delivery_id, event, action, serial_key, state, attempts, run_at_ms, created_at_ms, updated_at_ms)
    VALUES ('webhook', NEW.delivery_id, NEW.event, NEW.action, NEW.serial_key, 'queued', 0, NEW.received_at_ms, NEW.received_at_ms, NEW.received_at_ms);
END;

-- Live processes: each beats every few seconds while it runs.
CREATE TABLE replicas (
    id           TEXT PRIMARY KEY NOT NULL,
    started_ms   INTEGER NOT NULL,
    heartbeat_ms INTEGER NOT NULL
);
