-- The head SHAs each PR had, with when this service first heard of them (the delivery that
-- announced them): an override is bound to the head the commenter saw.
CREATE TABLE pr_heads (
    repository TEXT NOT NULL,
    pr         BIGINT NOT NULL,
    head_sha   TEXT NOT NULL,
    seen_ms    BIGINT NOT NULL,
    PRIMARY KEY (repository, pr, head_sha)
);
