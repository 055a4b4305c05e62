//! Determinism on the peer scene (`Scene::peer`, 4096 colliders, 100 steps): a hash of every
//! step's contacts and events is identical for 1, 2, 4 and 8 rayon threads (explicit pools) and
//! across two runs. The hash is FNV-1a over explicitly little-endian bytes, not `std`'s hasher,
//! so that it can be compared across machines and Rust versions; the test prints it.

use sapwood::{ColliderDesc, World};
use sapwood_support::scenes::{DEFAULT_SEED, Scene};

const COLLIDERS: usize = 4096;
const STEPS: usize = 100;

/// FNV-1a, 64 bits.
struct Fnv(u64);

impl Fnv {
    fn bytes(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01B3);
        }
    }
    fn u32(&mut self, v: u32) {
        self.bytes(&v.to_le_bytes());
    }
}

/// `(final hash, total contacts seen, total events seen)`.
fn run(threads: usize) -> (u64, usize, usize) {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
    pool.install(|| {
        let mut scene = Scene::peer(COLLIDERS, DEFAULT_SEED);
        let mut world = World::new();
        let mut ids = vec![None; scene.id_bound()];
        for c in scene.colliders() {
            let desc = ColliderDesc { is_static: !c.moving, ..ColliderDesc::new(c.shape.clone(), c.pose) };
            ids[c.id as usize] = Some(world.insert(desc).unwrap());
        }
        let mut h = Fnv(0xCBF2_9CE4_8422_2325);
        let (mut contacts, mut events) = (0, 0);
        for step in 0..STEPS {
            if step > 0 {
                scene.step();
                for c in scene.moving() {
                    world.set_pose(ids[c.id as usize].unwrap(), c.pose).unwrap();
                }
            }
            world.step();
            h.u32(step as u32);
            // Contacts are `Pod` and `repr(C)` of u32/f32 fields: their bytes are the values,
            // little-endian on every machine this runs on (checked below).
            h.bytes(bytemuck::cast_slice(world.contacts()));
            for e in world.events() {
                for v in [e.a.index(), e.a.generation(), e.b.index(), e.b.generation(), e.kind as u32] {
                    h.u32(v);
                }
            }
            contacts += world.contacts().len();
            events += world.events().len();
        }
        (h.0, contacts, events)
    })
}

#[test]
fn peer_scene_hash_is_identical_for_1_2_4_8_threads_and_across_runs() {
    const { assert!(cfg!(target_endian = "little"), "the printed hash assumes little-endian contact bytes") };
    let first = run(1);
    println!(
        "peer scene {COLLIDERS} colliders, {STEPS} steps: hash {:016x} ({} contacts, {} events summed over steps)",
        first.0, first.1, first.2
    );
    assert!(first.1 > 100 * STEPS && first.2 > 1000, "the scene must have contacts and events to mean anything");
    for threads in [2, 4, 8] {
        assert_eq!(run(threads), first, "{threads} threads");
    }
    assert_eq!(run(1), first, "second run with 1 thread");
}
