-- A page per test (§9, §13).

-- Each failing or flaky result with its story: the run (id, attempt, link), the commit, the
-- branch or pull request, when, and the failure message's first lines (at most 2 KiB).
CREATE TABLE history_failures (
    repository TEXT NOT NULL,
    test       TEXT NOT NULL,
    run_id     TEXT NOT NULL,
    attempt    BIGINT NOT NULL,
    outcome    TEXT NOT NULL,
    -- How its run counted: counted (the branch windows), pull_request, outage.
    class      TEXT NOT NULL,
    sha        TEXT NOT NULL,
    branch     TEXT NOT NULL,
    pr         BIGINT,
    run_url    TEXT,
    at_ms      BIGINT NOT NULL,
    message    TEXT
);
CREATE INDEX history_failures_test ON history_failures (repository, test, at_ms);
CREATE INDEX history_failures_at ON history_failures (repository, at_ms);

-- What a test's status is read from, beside its counts: flaky outcomes in the dashboard's
-- window, and the plain failures it ends with.
ALTER TABLE history_tests ADD COLUMN flakes BIGINT;
ALTER TABLE history_tests ADD COLUMN tail_fails BIGINT;

-- The file's policy (JSON), and each listed test's note and pin: a test's page words its
-- proposal as the reliability pull request does.
ALTER TABLE reliability_files ADD COLUMN policy TEXT;
ALTER TABLE reliability_entries ADD COLUMN note TEXT;
ALTER TABLE reliability_entries ADD COLUMN pin BIGINT;

-- Tier changes merged into the default branch's file, seen when a new blob of it is read
-- (tier_changes keeps what the history proposed).
CREATE TABLE file_tier_changes (
    repository TEXT NOT NULL,
    test       TEXT NOT NULL,
    from_tier  TEXT,
    tier       TEXT NOT NULL,
    at_ms      BIGINT NOT NULL
);
CREATE INDEX file_tier_changes_at ON file_tier_changes (repository, at_ms);

-- Counting, sorting and filtering by tier, status, pass rate and runs read this one index,
-- not the rows (whose windows are blobs); it replaces 0011's page index (one index to keep
-- up to date per recorded result, not two).
DROP INDEX history_tests_page;
CREATE INDEX history_tests_page2 ON history_tests (repository, tier, runs, failures, flakes, tail_fails, test);
