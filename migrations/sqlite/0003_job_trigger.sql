-- Intake writes one statement per batch: the delivery row carries its job's serial key, and this
-- trigger enqueues the job in the same statement (so the same implicit transaction). A delivery
-- id seen before inserts nothing, so enqueues nothing.
ALTER TABLE deliveries ADD COLUMN serial_key TEXT;

CREATE TRIGGER deliveries_enqueue AFTER INSERT ON deliveries
WHEN NEW.serial_key IS NOT NULL
BEGIN
    INSERT INTO jobs (delivery_id, event, action, serial_key, state, attempts, run_at_ms, created_at_ms, updated_at_ms)
    VALUES (NEW.delivery_id, NEW.event, NEW.action, NEW.serial_key, 'queued', 0, NEW.received_at_ms, NEW.received_at_ms, NEW.received_at_ms);
END;
