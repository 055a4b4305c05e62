#!/usr/bin/env bash
# Bounded fuzzing for CI: builds the libFuzzer targets in fuzz/ and runs each one for
# FUZZ_SECONDS (default 30). Any crash, failed check or timeout fails the job and leaves the input
# in fuzz/artifacts/<target>/ (replay it: `cd fuzz && cargo run --example replay -- <target> <file>`).
#
# Needs only a stable toolchain and crates.io. By default the targets are built with plain cargo
# and the instrumentation flags cargo-fuzz itself passes for `--sanitizer none` (all stable `-C`
# flags), which saves installing cargo-fuzz (~1.5 min of CPU). FUZZ_WITH_CARGO_FUZZ=1 uses
# `cargo fuzz` instead, installing it when missing; stable rustc then needs RUSTC_BOOTSTRAP=1.
# No AddressSanitizer: the library has no unsafe code, and every check in the targets is an
# assert, which libFuzzer reports as a crash.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${FUZZ_SECONDS:-30}"
targets=(polygon snapshot world_ops queries)
host="$(rustc -vV | sed -n 's/^host: //p')"
# A target directory set by the caller (CARGO_TARGET_DIR, relative to the repository) is used
# as it is; otherwise the fuzz workspace's own.
bin="${CARGO_TARGET_DIR:-fuzz/target}/$host/release"

if [ "${FUZZ_WITH_CARGO_FUZZ:-0}" = 1 ]; then
    cargo fuzz --version >/dev/null 2>&1 || cargo install cargo-fuzz --locked
    RUSTC_BOOTSTRAP=1 cargo fuzz build -s none --fuzz-dir fuzz
else
    # `--target` keeps the flags off build scripts and proc macros, as cargo-fuzz does.
    RUSTFLAGS="-Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4 \
-Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table \
-Cllvm-args=-sanitizer-coverage-trace-compares --cfg fuzzing \
-Cllvm-args=-simplifycfg-branch-fold-threshold=0 -Cllvm-args=-sanitizer-coverage-stack-depth \
-Cdebug-assertions -Ccodegen-units=1" \
        cargo build --manifest-path fuzz/Cargo.toml --release --bins --target "$host" \
        --config 'profile.release.debug="line-tables-only"'
fi

for target in "${targets[@]}"; do
    echo "== fuzz $target for ${seconds}s"
    mkdir -p "fuzz/corpus/$target" "fuzz/artifacts/$target"
    log="fuzz/fuzz-$target.log"
    status=0
    "$bin/$target" -artifact_prefix="fuzz/artifacts/$target/" -max_total_time="$seconds" -timeout=10 \
        -rss_limit_mb=2048 -print_final_stats=1 "fuzz/corpus/$target" >"$log" 2>&1 || status=$?
    grep -E "^stat::(number_of_executed_units|peak_rss_mb)" "$log" || true
    if [ "$status" -ne 0 ]; then
        grep -E -A4 "panicked|SUMMARY|Test unit" "$log" || tail -40 "$log"
        echo "fuzz: $target FAILED (full log: $log)"
        exit 1
    fi
done
echo "fuzz: all targets clean"
