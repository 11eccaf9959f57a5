-- Maintainer overrides (one head SHA) and exemptions (the whole PR).
CREATE TABLE waivers (
    id         INTEGER PRIMARY KEY,
    repository TEXT NOT NULL,
    pr         INTEGER NOT NULL,
    kind       TEXT NOT NULL CHECK (kind IN ('override', 'exemption')),
    head_sha   TEXT,
    by_login   TEXT NOT NULL,
    reason     TEXT NOT NULL,
    at_ms      INTEGER NOT NULL
);
CREATE INDEX waivers_pr ON waivers (repository, pr);

-- Every command attempt, accepted or refused.
CREATE TABLE audit_log (
    id         INTEGER PRIMARY KEY,
    at_ms      INTEGER NOT NULL,
    repository TEXT NOT NULL,
    pr         INTEGER NOT NULL,
    head_sha   TEXT,
    actor      TEXT NOT NULL,
    command    TEXT NOT NULL,
    args       TEXT NOT NULL,
    accepted   INTEGER NOT NULL,
    why        TEXT NOT NULL
);
CREATE INDEX audit_log_pr ON audit_log (repository, pr, at_ms);

-- Installations the App was added to.
CREATE TABLE installations (
    id         INTEGER PRIMARY KEY,
    account    TEXT,
    updated_ms INTEGER NOT NULL,
    removed    INTEGER NOT NULL DEFAULT 0
);
