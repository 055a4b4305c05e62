fn main() {
    let mut s: u64 = std::env::args().nth(1).map_or(1, |a| a.parse().unwrap());
    let iters: usize = std::env::args().nth(2).map_or(1000, |a| a.parse().unwrap());
    let mut next = || { s = s.wrapping_add(0x9E3779B97F4A7C15); let mut z = s; z = (z ^ (z >> 30)).wrapping_mul(0xBF58476D1CE4E5B9); z = (z ^ (z >> 27)).wrapping_mul(0x94D049BB133111EB); z ^ (z >> 31) };
    for i in 0..iters {
        let len = (next() % 3000) as usize;
        // Bias bytes towards small values so that decoded floats are often sane.
        let data: Vec<u8> = (0..len).map(|_| { let r = next(); if r % 4 == 0 { (r >> 8) as u8 } else { ((r >> 8) % 12) as u8 } }).collect();
        let r = std::panic::catch_unwind(|| {
            sapwood_fuzz::run_polygon(&data);
            sapwood_fuzz::run_queries(&data);
            drop(sapwood_fuzz::run_world_ops(&data));
            let mut snap = vec![(i % 4) as u8];
            snap.extend_from_slice(&data);
            sapwood_fuzz::run_snapshot(&snap);
        });
        if r.is_err() {
            std::fs::write(format!("/tmp/dbg/crash-{i}"), &data).unwrap();
            eprintln!("CRASH at {i}");
            std::process::exit(1);
        }
    }
    eprintln!("done {iters}");
}
