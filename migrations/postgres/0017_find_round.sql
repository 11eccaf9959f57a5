-- The find round of "Found in the PR's tests" (docs/verification.md#found-in-the-prs-tests): a
-- verification session whose claim_kind is 'find' runs every test of the PR's test files once
-- on each side; each side keeps what each test did there (JSON: [{test, seen, reason}]), so the
-- candidates are read again after a restart without the runs' reports.
ALTER TABLE rerun_sides ADD COLUMN found TEXT;
