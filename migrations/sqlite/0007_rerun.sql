-- Rerun sessions (§10): one test rerun alone on a PR's head and on its merge base. A session is
-- created once (its id is derived from what started it), each side records its dispatch and
-- then its count when its run completes.
CREATE TABLE rerun_sessions (
    id              TEXT PRIMARY KEY,
    repository      TEXT NOT NULL,
    installation_id INTEGER NOT NULL,
    pr_number       INTEGER NOT NULL,
    test            TEXT NOT NULL,
    runs            INTEGER NOT NULL,
    workflow        TEXT NOT NULL,
    trigger_kind    TEXT NOT NULL,
    trigger_detail  TEXT NOT NULL,
    comment_id      INTEGER,
    state           TEXT NOT NULL,
    history_failures INTEGER,
    history_runs    INTEGER,
    created_ms      INTEGER NOT NULL,
    deadline_ms     INTEGER NOT NULL
);
CREATE INDEX rerun_sessions_pr ON rerun_sessions (repository, pr_number);

CREATE TABLE rerun_sides (
    session        TEXT NOT NULL,
    side           TEXT NOT NULL,
    sha            TEXT NOT NULL,
    dispatched_ms  INTEGER,
    dispatch_error TEXT,
    run_id         INTEGER,
    run_url        TEXT,
    failures       INTEGER,
    runs           INTEGER,
    seeds          TEXT,
    done_ms        INTEGER,
    PRIMARY KEY (session, side)
);
