-- Rerun sessions (§10): one test rerun alone on a PR's head and on its merge base. A session is
-- created once (its id is derived from what started it), each side records its dispatch and
-- then its count when its run completes.
CREATE TABLE rerun_sessions (
    id              TEXT PRIMARY KEY,
    repository      TEXT NOT NULL,
    installation_id BIGINT NOT NULL,
    pr_number       BIGINT NOT NULL,
    test            TEXT NOT NULL,
    runs            BIGINT NOT NULL,
    workflow        TEXT NOT NULL,
    trigger_kind    TEXT NOT NULL,
    trigger_detail  TEXT NOT NULL,
    comment_id      BIGINT,
    state           TEXT NOT NULL,
    history_failures BIGINT,
    history_runs    BIGINT,
    created_ms      BIGINT NOT NULL,
    deadline_ms     BIGINT NOT NULL
);
CREATE INDEX rerun_sessions_pr ON rerun_sessions (repository, pr_number);

CREATE TABLE rerun_sides (
    session        TEXT NOT NULL,
    side           TEXT NOT NULL,
    sha            TEXT NOT NULL,
    dispatched_ms  BIGINT,
    dispatch_error TEXT,
    run_id         BIGINT,
    run_url        TEXT,
    failures       BIGINT,
    runs           BIGINT,
    seeds          TEXT,
    done_ms        BIGINT,
    PRIMARY KEY (session, side)
);
