-- The history (§9). A run is recorded once (repository, run id, attempt); each test's recent
-- outcomes live in a compact window updated as results arrive, so computing tiers never scans
-- stored results.
CREATE TABLE history_runs (
    id           INTEGER PRIMARY KEY,
    repository   TEXT NOT NULL,
    run_id       TEXT NOT NULL,
    attempt      INTEGER NOT NULL,
    sha          TEXT NOT NULL,
    branch       TEXT NOT NULL,
    class        TEXT NOT NULL,
    results      INTEGER NOT NULL,
    source       TEXT NOT NULL,
    installation_id INTEGER,
    recorded_ms  INTEGER NOT NULL,
    UNIQUE (repository, run_id, attempt)
);
CREATE INDEX history_runs_repo ON history_runs (repository, recorded_ms);

CREATE TABLE history_tests (
    repository TEXT NOT NULL,
    test       TEXT NOT NULL,
    win        BLOB NOT NULL,
    updated_ms INTEGER NOT NULL,
    PRIMARY KEY (repository, test)
);

-- What a pull request's commit showed of each test (only same-SHA flakiness counts there).
CREATE TABLE history_pr_outcomes (
    repository TEXT NOT NULL,
    sha        TEXT NOT NULL,
    test       TEXT NOT NULL,
    flags      INTEGER NOT NULL,
    PRIMARY KEY (repository, sha, test)
);

-- Tier changes the generator proposed: the tier and the test's run count then (hysteresis
-- counts runs since the last change).
CREATE TABLE history_changes (
    repository TEXT NOT NULL,
    test       TEXT NOT NULL,
    tier       TEXT NOT NULL,
    at_total   INTEGER NOT NULL,
    PRIMARY KEY (repository, test)
);

-- Upload tokens, stored hashed (SHA-256); shown once when made.
CREATE TABLE upload_tokens (
    id         INTEGER PRIMARY KEY,
    repository TEXT NOT NULL,
    hash       TEXT NOT NULL UNIQUE,
    created_ms INTEGER NOT NULL,
    revoked_ms INTEGER
);

-- The last scheduled publish of each repository.
CREATE TABLE history_publishes (
    repository  TEXT PRIMARY KEY,
    last_due_ms INTEGER NOT NULL
);
