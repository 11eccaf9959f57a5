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
