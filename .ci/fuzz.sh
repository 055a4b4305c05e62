#!/usr/bin/env bash
# Bounded fuzzing for CI: builds the cargo-fuzz targets in fuzz/ and runs each one for
# FUZZ_SECONDS (default 30) with libFuzzer. Any crash, failed check or timeout fails the job and
# leaves the input in fuzz/artifacts/<target>/ (replay it with
# `cd fuzz && cargo run --example replay -- <target> <file>`).
#
# Needs only crates.io: installs cargo-fuzz when missing. Works on a stable toolchain:
# RUSTC_BOOTSTRAP=1 lets stable rustc take the flags cargo-fuzz passes, and `-s none` skips
# AddressSanitizer, whose runtime a stable toolchain may lack (the library has no unsafe code;
# every check in the targets is an assert, which libFuzzer reports as a crash).
# Budget on 2 cores: cargo-fuzz install ~1.5 min CPU, build ~2 min CPU, 3 × FUZZ_SECONDS.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${FUZZ_SECONDS:-30}"
if ! cargo fuzz --version >/dev/null 2>&1; then
    cargo install cargo-fuzz --locked
fi
export RUSTC_BOOTSTRAP=1
cargo fuzz build -s none --fuzz-dir fuzz
for target in polygon snapshot world_ops; do
    echo "== fuzz $target for ${seconds}s"
    log="fuzz/fuzz-$target.log"
    status=0
    cargo fuzz run -s none --fuzz-dir fuzz "$target" -- \
        -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 >"$log" 2>&1 || status=$?
    grep -E "^stat::(number_of_executed_units|peak_rss_mb)" "$log" || true
    if [ "$status" -ne 0 ]; then
        grep -E -A4 "panicked|SUMMARY|Test unit" "$log" || tail -40 "$log"
        echo "fuzz: $target FAILED (full log: $log)"
        exit 1
    fi
done
echo "fuzz: all targets clean"
