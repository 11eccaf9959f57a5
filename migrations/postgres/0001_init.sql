-- Webhook deliveries, stored before the 202 answer.
CREATE TABLE deliveries (
    delivery_id     TEXT PRIMARY KEY,
    event           TEXT NOT NULL,
    action          TEXT,
    installation_id BIGINT,
    repository      TEXT,
    payload_encoding TEXT NOT NULL DEFAULT 'raw',
    received_at_ms  BIGINT NOT NULL,
    payload         BYTEA NOT NULL
);

-- The durable job queue: one job per handled delivery.
CREATE TABLE jobs (
    id             BIGSERIAL PRIMARY KEY,
    delivery_id    TEXT NOT NULL REFERENCES deliveries(delivery_id),
    event          TEXT NOT NULL,
    action         TEXT,
    serial_key     TEXT NOT NULL,
    state          TEXT NOT NULL CHECK (state IN ('queued', 'running', 'done', 'dead')),
    attempts       INTEGER NOT NULL DEFAULT 0,
    run_at_ms      BIGINT NOT NULL,
    lease_owner    TEXT,
    lease_until_ms BIGINT,
    last_error     TEXT,
    created_at_ms  BIGINT NOT NULL,
    updated_at_ms  BIGINT NOT NULL
);

CREATE INDEX jobs_ready ON jobs (state, run_at_ms, id);
CREATE INDEX jobs_serial_running ON jobs (serial_key, state);
CREATE INDEX jobs_delivery ON jobs (delivery_id);

-- One row per serial key (a pull request) while a job for it runs. The primary key is what keeps
-- two replicas from running jobs of one PR at once: a claim must win this row first.
CREATE TABLE job_keys (
    serial_key     TEXT PRIMARY KEY,
    job_id         BIGINT NOT NULL,
    lease_until_ms BIGINT NOT NULL
);
