//! Every test, bench and example in the repository is declared in dev/Cargo.toml. Cargo's
//! discovery of targets is off there (and at the root, so that the published manifest names
//! none), so a file that nobody declares would silently never build or run.

use std::path::Path;

#[test]
fn every_target_file_is_declared() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let manifest = std::fs::read_to_string(root.join("dev/Cargo.toml")).expect("dev/Cargo.toml is readable");
    let mut missing = Vec::new();
    for dir in ["tests", "benches", "examples"] {
        for entry in std::fs::read_dir(root.join(dir)).expect("the target folders exist") {
            let path = entry.expect("a readable folder entry").path();
            let name = path.file_name().and_then(|n| n.to_str()).expect("UTF-8 file names").to_owned();
            let target = if path.is_dir() {
                format!("{dir}/{name}/main.rs")
            } else if name.ends_with(".rs") {
                format!("{dir}/{name}")
            } else {
                continue;
            };
            if (!path.is_dir() || path.join("main.rs").exists())
                && !manifest.contains(&format!("path = \"../{target}\""))
            {
                missing.push(target);
            }
        }
    }
    assert!(missing.is_empty(), "not declared in dev/Cargo.toml: {missing:?}");
}
