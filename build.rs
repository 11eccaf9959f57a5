//! Turns on the Postgres variants of the tests when `TEST_DATABASE_URL` is set, so a run without
//! it reports them as ignored in the test runner's own tally instead of counting them as passed.
//! Also rebuilds when a migration changes: `sqlx::migrate!` embeds them, and stable Rust does not
//! track the folder for it.

fn main() {
    println!("cargo::rustc-check-cfg=cfg(postgres_tests)");
    println!("cargo::rerun-if-env-changed=TEST_DATABASE_URL");
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-changed=migrations");
    if std::env::var_os("TEST_DATABASE_URL").is_some_and(|v| !v.is_empty()) {
        println!("cargo::rustc-cfg=postgres_tests");
    }
}
