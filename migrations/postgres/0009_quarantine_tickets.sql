-- Quarantine tickets as issues (§10 `rerun.tickets: issue`): the open issue of each test, so a
-- second `not this change` updates it. Jobs filing one test's ticket share a serial key, so two
-- sessions finishing at once (on two replicas) never both open an issue.
CREATE TABLE quarantine_tickets (
    repository   TEXT NOT NULL,
    test         TEXT NOT NULL,
    issue_number BIGINT NOT NULL,
    updated_ms   BIGINT NOT NULL,
    PRIMARY KEY (repository, test)
);
