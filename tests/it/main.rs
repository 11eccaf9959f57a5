//! The integration suite: one binary, the real server on port 0 with a fresh database per test.
//! Every test runs on SQLite; the same tests run on Postgres when `TEST_DATABASE_URL` is set.

mod browser;
mod ci_test;
mod commands;
mod common;
mod dashboard;
mod deploy_files;
mod economy;
mod fake_actions;
mod fake_github;
mod fixtures_real;
mod gate;
mod github_client;
mod history;
mod intake;
mod layout;
mod local;
mod mcp;
mod metamorphic;
mod operate;
mod queue;
mod real_prs;
mod recovery;
mod reliability_comment;
mod replicas;
mod rerun;
mod test_ids;
mod test_pages;
mod verify;
mod vocabulary;
mod why;
mod workflow_shell;
