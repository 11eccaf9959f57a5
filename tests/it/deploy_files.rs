//! Every YAML and JSON file under `deploy/` parses.

#[test]
fn deploy_yaml_and_json_files_parse() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("deploy");
    let mut seen = 0;
    let mut stack = vec![dir];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d)
            .expect("deploy/ is readable")
            .flatten()
        {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let text = std::fs::read_to_string(&path).expect("readable");
            match path.extension().and_then(|e| e.to_str()) {
                Some("json") => {
                    serde_json::from_str::<serde_json::Value>(&text)
                        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                    seen += 1;
                }
                Some("yml" | "yaml") => {
                    // Multi-document files: each document parses.
                    for (i, doc) in text.split("\n---\n").enumerate() {
                        serde_saphyr::from_str::<serde_json::Value>(doc)
                            .unwrap_or_else(|e| panic!("{} document {i}: {e}", path.display()));
                    }
                    seen += 1;
                }
                _ => {}
            }
        }
    }
    assert!(
        seen >= 3,
        "expected the manifest, compose file and Kubernetes manifests; saw {seen}"
    );
}

/// The rerun workflow to copy (docs/rerun.md): dispatched with `sha`, `test`, `runs`, `session` (and
/// `side`), named so repro-gate finds its session, one test run `runs` times with caches off
/// for each runner, the report uploaded under the name repro-gate reads, and no input ever
/// spliced into a shell line.
#[test]
fn the_rerun_workflow_takes_the_inputs_as_data_and_uploads_its_report() {
    let text = include_str!("../../deploy/repro-gate-rerun.yml");
    let wf: serde_json::Value = serde_saphyr::from_str(text).expect("the workflow parses");
    let inputs = &wf["on"]["workflow_dispatch"]["inputs"];
    for name in ["sha", "test", "runs", "session"] {
        assert_eq!(inputs[name]["required"], true, "{name}");
    }
    assert_eq!(inputs["runs"]["type"], "number");
    assert_eq!(inputs["side"]["required"], false);
    assert_eq!(
        repro_gate::core::rerun::dispatch_inputs(text).expect("a dispatch trigger"),
        [
            "sha",
            "test",
            "runs",
            "session",
            "side",
            "tests_from",
            "tests",
            "seed",
            "command",
            "options"
        ]
    );
    // GitHub allows 25 inputs; 10 keeps the form usable by hand (docs/verification.md).
    assert!(inputs.as_object().expect("inputs").len() <= 10);
    assert_eq!(wf["permissions"]["contents"], "read");
    for s in steps_of(&wf) {
        if s["uses"]
            .as_str()
            .is_some_and(|u| u.starts_with("actions/checkout"))
        {
            assert_eq!(
                s["with"]["persist-credentials"], false,
                "no credentials kept: {s}"
            );
        }
        if s["uses"]
            .as_str()
            .is_some_and(|u| u.starts_with("actions/setup-"))
        {
            assert_ne!(s["with"]["cache"], true, "no caches: {s}");
        }
        assert!(
            !s["uses"]
                .as_str()
                .unwrap_or("")
                .starts_with("actions/cache"),
            "no caches"
        );
    }
    let run_name = wf["run-name"].as_str().expect("run-name");
    assert!(
        run_name.starts_with("repro-gate rerun ${{ inputs.session }} "),
        "{run_name}"
    );
    // Every `run:` script reads the inputs from the environment, never `${{ inputs.… }}`.
    let steps = wf["jobs"]["rerun"]["steps"].as_array().expect("steps");
    let scripts: Vec<&str> = steps.iter().filter_map(|s| s["run"].as_str()).collect();
    assert!(scripts.len() >= 3, "a check step, the overlay and the runs");
    for s in &scripts {
        assert!(
            !s.contains("${{"),
            "an expression spliced into a shell script:\n{s}"
        );
    }
    let env = &wf["jobs"]["rerun"]["env"];
    assert_eq!(env["RERUN_TEST"], "${{ inputs.test }}");
    assert_eq!(env["RERUN_RUNS"], "${{ inputs.runs }}");
    let all = scripts.join("\n");
    for runner in [
        "run_one \"$i\" go test -count=1 -race -shuffle=on -v",
        "run_one \"$i\" cargo test --no-fail-fast",
        "run_one \"$i\" python -m pytest -v -rA",
        "run_one \"$i\" npx jest --ci --no-cache",
        "timeout -k 10 \"$limit\"",
    ] {
        assert!(all.contains(runner), "{runner}");
    }
    // The checkout is of the input SHA; the report goes up under the name repro-gate reads.
    let checkout = steps
        .iter()
        .find(|s| {
            s["uses"]
                .as_str()
                .is_some_and(|u| u.starts_with("actions/checkout"))
        })
        .expect("checkout");
    assert_eq!(checkout["with"]["ref"], "${{ inputs.sha }}");
    let upload = steps
        .iter()
        .find(|s| {
            s["uses"]
                .as_str()
                .is_some_and(|u| u.starts_with("actions/upload-artifact"))
        })
        .expect("upload");
    assert_eq!(upload["with"]["name"], "repro-gate-rerun-junit");
    assert_eq!(upload["if"], "always()");
    let patterns = repro_gate::history::sources::artifact_globs(
        &repro_gate::core::config::RepoConfig::default()
            .history
            .artifacts,
    );
    assert!(
        patterns.is_match("repro-gate-rerun-junit"),
        "the default history.artifacts read it too"
    );
}

fn steps_of(wf: &serde_json::Value) -> Vec<serde_json::Value> {
    wf["jobs"]["rerun"]["steps"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

#[test]
fn the_systemd_unit_keeps_what_the_service_writes_private() {
    let unit = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("deploy/repro-gate.service"),
    )
    .expect("the unit");
    let service: Vec<&str> = unit
        .lines()
        .skip_while(|l| l.trim() != "[Service]")
        .take_while(|l| !l.starts_with('[') || l.trim() == "[Service]")
        .collect();
    assert!(
        service.iter().any(|l| l.trim() == "UMask=0077"),
        "[Service] sets UMask=0077: {service:?}"
    );
}
