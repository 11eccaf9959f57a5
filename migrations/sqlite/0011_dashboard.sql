-- The dashboard (§13).

-- Signed-in visitors. The id in the cookie is stored hashed; the user's GitHub token never
-- leaves the server.
CREATE TABLE dashboard_sessions (
    id_hash    TEXT PRIMARY KEY,
    login      TEXT NOT NULL,
    token      TEXT NOT NULL,
    created_ms INTEGER NOT NULL,
    expires_ms INTEGER NOT NULL
);

-- Each test's runs and failures over its last 200 counted outcomes (the default window), kept
-- beside its window so that a page sorts and filters in SQL without decoding every window.
ALTER TABLE history_tests ADD COLUMN runs INTEGER;
ALTER TABLE history_tests ADD COLUMN failures INTEGER;
-- The default branch file's tier of the test (NULL: not listed, the default tier), copied here
-- when the file is read so that a page sorts, filters and counts without a join.
ALTER TABLE history_tests ADD COLUMN tier TEXT;
-- Everything a page sorts, filters and counts by, so that a page of 50,000 tests reads this
-- index, not the windows.
CREATE INDEX history_tests_page ON history_tests (repository, tier, runs, failures, test);

-- The default branch's reliability file as last read, one row per listed test, replaced when
-- the file's blob changes.
CREATE TABLE reliability_files (
    repository   TEXT PRIMARY KEY,
    sha          TEXT NOT NULL,
    default_tier TEXT NOT NULL,
    read_ms      INTEGER NOT NULL
);
CREATE TABLE reliability_entries (
    repository TEXT NOT NULL,
    test       TEXT NOT NULL,
    tier       TEXT NOT NULL,
    owner      TEXT,
    ticket     TEXT,
    PRIMARY KEY (repository, test)
);

-- What the gate concluded for each PR head it judged (the newest basis per head).
CREATE TABLE gate_outcomes (
    repository TEXT NOT NULL,
    pr         INTEGER NOT NULL,
    head_sha   TEXT NOT NULL,
    basis      TEXT NOT NULL,
    at_ms      INTEGER NOT NULL,
    PRIMARY KEY (repository, pr, head_sha)
);
CREATE INDEX gate_outcomes_at ON gate_outcomes (repository, at_ms);
CREATE INDEX rerun_sessions_recent ON rerun_sessions (repository, created_ms);

-- Every tier change the history proposed, with when (history_changes keeps only the newest).
CREATE TABLE tier_changes (
    repository TEXT NOT NULL,
    test       TEXT NOT NULL,
    tier       TEXT NOT NULL,
    at_ms      INTEGER NOT NULL
);
CREATE INDEX tier_changes_at ON tier_changes (repository, at_ms);

-- The pull request the last publish opened or updated.
CREATE TABLE reliability_pulls (
    repository TEXT PRIMARY KEY,
    number     INTEGER NOT NULL,
    at_ms      INTEGER NOT NULL
);
