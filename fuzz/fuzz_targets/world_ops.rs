//! See `sapwood_fuzz::run_world_ops`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = sapwood_fuzz::run_world_ops(data);
});
