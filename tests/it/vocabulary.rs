//! `repro-gate vocabulary DIR` as a user runs it: a checkout with a project's own wrappers, a
//! test, a vendored copy and a build folder; the block it prints parses as the config's
//! `primitives`, and the classifier then reads those names in a diff.

use std::process::Command;

fn run(args: &[&std::ffi::OsStr]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_repro-gate"))
        .args(args)
        .output()
        .expect("runs")
}

#[test]
fn the_block_names_the_checkout_s_wrappers_and_the_classifier_reads_them() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    let write = |rel: &str, text: &str| {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        std::fs::write(p, text).expect("write");
    };
    write(
        "src/util/refs.h",
        "#define PROJ_REFCOUNT_INC(r) proj_atomic_inc(&(r)->refs)\n\
         #define PROJ_MAX(a, b) ((a) > (b) ? (a) : (b))\n\
         static inline void proj_full_mb(void)\n{\n\t__sync_synchronize();\n}\n",
    );
    // A test's helpers, a vendored library's and a build output's are not the repository's words.
    write(
        "tests/helpers.h",
        "#define TEST_SPIN(x) __sync_synchronize()\n",
    );
    write(
        "third_party/lib/x.h",
        "#define VENDOR_INC(p) __sync_add_and_fetch(p, 1)\n",
    );
    write(
        "build/gen.h",
        "#define GEN_INC(p) __sync_add_and_fetch(p, 1)\n",
    );

    let out = run(&["vocabulary".as_ref(), root.as_os_str()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let block = String::from_utf8(out.stdout).expect("utf-8");
    #[derive(serde::Deserialize)]
    struct Doc {
        primitives: Vec<String>,
    }
    let doc: Doc = serde_saphyr::from_str(&block).expect("the block is YAML");
    assert_eq!(
        doc.primitives,
        ["PROJ_REFCOUNT_INC", "proj_full_mb"],
        "{block}"
    );
    assert!(block.contains("src/util/refs.h:1"), "{block}");

    // The block as the repository's config: the wrapper counts in a diff, and not without it.
    let config = root.join("repro-gate.yml");
    std::fs::write(&config, &block).expect("config");
    let diff = root.join("change.diff");
    std::fs::write(
        &diff,
        "--- a/src/pack.c\n+++ b/src/pack.c\n@@ -1,1 +1,2 @@\n x = 1;\n+\tPROJ_REFCOUNT_INC(entry);\n",
    )
    .expect("diff");
    let with = run(&[
        "classify".as_ref(),
        "--diff".as_ref(),
        diff.as_os_str(),
        "--config".as_ref(),
        config.as_os_str(),
    ]);
    let without = run(&["classify".as_ref(), "--diff".as_ref(), diff.as_os_str()]);
    let verdict = |o: &std::process::Output| -> serde_json::Value {
        serde_json::from_slice(&o.stdout).expect("json")
    };
    assert_eq!(verdict(&with)["concurrency"], true);
    assert_eq!(verdict(&with)["reasons"][0]["rule"], "config.primitives");
    assert_eq!(verdict(&without)["concurrency"], false);
}

#[test]
fn a_path_that_is_not_a_directory_is_bad_input() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("x.c");
    std::fs::write(&file, "int x;\n").expect("write");
    let out = run(&["vocabulary".as_ref(), file.as_os_str()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a directory"));
}

#[test]
fn primitives_that_are_not_names_are_a_config_error() {
    for bad in [
        "primitives: [\"a b\"]\n",
        "primitives: [\"--exec\"]\n",
        "primitives: [\"x[\"]\n",
    ] {
        let err = repro_gate::core::config::parse(bad).expect_err(bad);
        assert!(
            err.message.starts_with("primitives:"),
            "{bad}: {}",
            err.message
        );
        assert_eq!(err.line, Some(1));
    }
    let ok = repro_gate::core::config::parse("primitives: [\"PROJ_ATOMIC_*\", AtomicCounter]\n")
        .expect("valid");
    assert_eq!(ok.primitives, ["PROJ_ATOMIC_*", "AtomicCounter"]);
}
