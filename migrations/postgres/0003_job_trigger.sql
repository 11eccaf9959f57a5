-- The delivery row records its job's serial key, as on SQLite (where a trigger enqueues from
-- it). Postgres enqueues in the same transaction from the application instead.
ALTER TABLE deliveries ADD COLUMN serial_key TEXT;
