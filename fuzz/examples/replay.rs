//! Runs a fuzz target's function on saved inputs without libFuzzer, for debugging a crash:
//! `cargo run --example replay -- <polygon|snapshot|world_ops|queries> <file>...`
//! (set `SAPWOOD_FUZZ_TRACE=1` to print every decoded world operation).

fn main() {
    let mut args = std::env::args().skip(1);
    let target = args.next().expect("usage: replay <target> <file>...");
    for path in args {
        let data = std::fs::read(&path).expect("readable input");
        eprintln!("{target} {path} ({} bytes)", data.len());
        match target.as_str() {
            "polygon" => sapwood_fuzz::run_polygon(&data),
            "snapshot" => sapwood_fuzz::run_snapshot(&data),
            "world_ops" => drop(sapwood_fuzz::run_world_ops(&data)),
            "queries" => sapwood_fuzz::run_queries(&data),
            _ => panic!("unknown target {target}"),
        }
        eprintln!("ok");
    }
}
