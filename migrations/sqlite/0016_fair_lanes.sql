-- Fair queues (docs/service.md#the-job-queue): each job records the installation whose work it
-- is (0 for the App's own work), and a claim takes the oldest ready job of the installation with
-- the fewest running jobs, so one installation's burst never delays another's next PR.
ALTER TABLE jobs ADD COLUMN lane INTEGER NOT NULL DEFAULT 0;
CREATE INDEX jobs_lane_running ON jobs (state, lane);

DROP TRIGGER deliveries_enqueue;
CREATE TRIGGER deliveries_enqueue AFTER INSERT ON deliveries
WHEN NEW.serial_key IS NOT NULL
BEGIN
    INSERT INTO jobs (kind, delivery_id, event, action, serial_key, state, attempts, run_at_ms, created_at_ms, updated_at_ms, lane)
    VALUES ('webhook', NEW.delivery_id, NEW.event, NEW.action, NEW.serial_key, 'queued', 0, NEW.received_at_ms, NEW.received_at_ms, NEW.received_at_ms, COALESCE(NEW.installation_id, 0));
END;

UPDATE jobs SET lane = COALESCE((SELECT d.installation_id FROM deliveries d WHERE d.delivery_id = jobs.delivery_id), 0)
WHERE state IN ('queued', 'running') AND delivery_id IS NOT NULL;
