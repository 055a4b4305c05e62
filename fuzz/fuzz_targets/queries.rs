//! See `sapwood_fuzz::run_queries`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    sapwood_fuzz::run_queries(data);
});
