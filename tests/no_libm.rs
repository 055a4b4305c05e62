//! The library calls no function of the platform's maths library (`sin`, `cos`, `atan2`, `exp`,
//! `powf`, …): their last bits differ between platforms, and sapwood promises the same bits on
//! every platform for the same inputs. Its own `trig` module is the one place that computes
//! such functions, from operations IEEE 754 defines exactly. This test reads every source file
//! of the library (its unit tests excepted, which compare against the maths library on purpose)
//! and fails on any call of that kind.

use std::path::Path;

/// Method calls that reach the maths library (`sqrt`, `abs`, `floor`, `round`, `mul_add` are
/// exact by IEEE 754 and allowed).
const FORBIDDEN: &[&str] = &[
    ".sin(",
    ".cos(",
    ".tan(",
    ".sin_cos(",
    ".asin(",
    ".acos(",
    ".atan(",
    ".atan2(",
    ".sinh(",
    ".cosh(",
    ".tanh(",
    ".exp(",
    ".exp2(",
    ".exp_m1(",
    ".ln(",
    ".ln_1p(",
    ".log2(",
    ".log10(",
    ".powf(",
    ".powi(",
    ".hypot(",
    ".cbrt(",
];

/// Appends the forbidden calls in `dir`'s sources to `found`; returns how many lines it read.
fn scan(dir: &Path, found: &mut Vec<String>) -> usize {
    let mut lines = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            lines += scan(&path, found);
            continue;
        }
        let name = path.file_name().unwrap().to_string_lossy();
        // The trigonometry itself, and files that only hold tests.
        if !name.ends_with(".rs") || ["trig.rs", "tests.rs", "test_util.rs", "test_kit.rs"].contains(&name.as_ref()) {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        for (i, line) in text.lines().enumerate() {
            let code = line.trim_start();
            // A file's unit tests come last, after their `#[cfg(test)]`.
            if code.starts_with("#[cfg(test)]") {
                break;
            }
            if code.starts_with("//") {
                continue;
            }
            lines += 1;
            for f in FORBIDDEN {
                if code.contains(f) {
                    found.push(format!("{}:{}: {}", path.display(), i + 1, code));
                }
            }
        }
    }
    lines
}

#[test]
fn the_library_calls_no_maths_library_function() {
    let mut found = Vec::new();
    let lines = scan(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../src"), &mut found);
    assert!(lines > 10_000, "read only {lines} lines of the library");
    assert!(found.is_empty(), "maths-library calls (use crate::trig):\n{}", found.join("\n"));
}
