-- Fair queues (docs/service.md#the-job-queue): each job records the installation whose work it
-- is (0 for the App's own work), and a claim takes the oldest ready job of the installation with
-- the fewest running jobs, so one installation's burst never delays another's next PR.
ALTER TABLE jobs ADD COLUMN lane BIGINT NOT NULL DEFAULT 0;
CREATE INDEX jobs_lane_running ON jobs (state, lane);

UPDATE jobs SET lane = COALESCE((SELECT d.installation_id FROM deliveries d WHERE d.delivery_id = jobs.delivery_id), 0)
WHERE state IN ('queued', 'running') AND delivery_id IS NOT NULL;
