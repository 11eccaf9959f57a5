-- Who set a tier (docs/dashboard.md): the commit of the default branch that last changed the
-- reliability file when a tier change was seen, its pull request and author; at_ms is then
-- that commit's time, not when the file was read.
ALTER TABLE file_tier_changes ADD COLUMN commit_sha TEXT;
ALTER TABLE file_tier_changes ADD COLUMN pr BIGINT;
ALTER TABLE file_tier_changes ADD COLUMN by_login TEXT;
