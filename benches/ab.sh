#!/usr/bin/env bash
# Interleaved A/B of two builds of the step_profile example (BENCHMARKS.md, "Method"): every
# row runs both binaries three times, alternating, and the table keeps the fastest run of each
# (the host's speed drifts; interleaving and minima keep the comparison fair).
#
#   git worktree add /tmp/base <rev> && (cd /tmp/base && cargo build --release --example step_profile)
#   cargo build --release --example step_profile
#   bash benches/ab.sh /tmp/base/target/release/examples/step_profile target/release/examples/step_profile
set -euo pipefail
if [ $# -ne 2 ]; then
    echo "usage: $0 BEFORE_STEP_PROFILE AFTER_STEP_PROFILE" >&2
    exit 2
fi
before=$1 after=$2

# label | environment | arguments
rows=(
    "8192 sap 1T|BP=sap RAYON_NUM_THREADS=1 STEPS=300|8192"
    "8192 sap 2T|BP=sap RAYON_NUM_THREADS=2 STEPS=300|8192"
    "8192 hash 1T|BP=hash RAYON_NUM_THREADS=1 STEPS=300|8192"
    "8192 hash 2T|BP=hash RAYON_NUM_THREADS=2 STEPS=300|8192"
    "65536 sap 1T|BP=sap RAYON_NUM_THREADS=1 STEPS=60|65536"
    "65536 sap 2T|BP=sap RAYON_NUM_THREADS=2 STEPS=60|65536"
    "65536 hash 1T|BP=hash RAYON_NUM_THREADS=1 STEPS=60|65536"
    "65536 hash 2T|BP=hash RAYON_NUM_THREADS=2 STEPS=60|65536"
    "1M@1% sap 2T|BP=sap RAYON_NUM_THREADS=2 STEPS=30|1000000 1"
    "1M@1% hash 2T|BP=hash RAYON_NUM_THREADS=2 STEPS=30|1000000 1"
    "seed 1024 random-half sap 1T|SEED_SCENE=random-half BP=sap RAYON_NUM_THREADS=1 STEPS=300|1024"
    "seed 1024 random-half brute 1T|SEED_SCENE=random-half BP=brute RAYON_NUM_THREADS=1 STEPS=300|1024"
    "seed 8192 random-half sap 2T|SEED_SCENE=random-half BP=sap RAYON_NUM_THREADS=2 STEPS=30|8192"
    "seed 1024 random-still sap 2T|SEED_SCENE=random-still BP=sap RAYON_NUM_THREADS=2 STEPS=300|1024"
)

# One line per run: label|which|CPU ms|wall ms|aabbs|broad|narrow|contacts
runs() {
    for row in "${rows[@]}"; do
        IFS='|' read -r label envs args <<<"$row"
        for _ in 1 2 3; do
            for which in before after; do
                bin=$before
                [ "$which" = after ] && bin=$after
                # shellcheck disable=SC2086 # word splitting of the environment and arguments is meant
                out=$(env $envs "$bin" $args 2>&1 | grep -E '^(CPU per step|wall of World::step|wall per phase)' | tr '\n' ' ')
                echo "$out" | sed -E "s/.*CPU per step \(set_pose \+ step\): ([0-9.]+) ms.*median ([0-9.]+) ms.*aabbs ([0-9.]+) ms, broad ([0-9.]+) ms, narrow ([0-9.]+) ms.*; ([0-9]+) contacts.*/$label|$which|\1|\2|\3|\4|\5|\6/"
            done
        done
    done
}

runs | awk -F'|' '
    !($1 in seen) { seen[$1] = 1; order[++n] = $1 }
    {
        k = $1 SUBSEP $2
        if (!(k in wall) || $4 < wall[k]) { wall[k] = $4; phases[k] = $5 " / " $6 " / " $7; contacts[k] = $8 }
        if (!(k in cpu) || $3 < cpu[k]) cpu[k] = $3
    }
    END {
        print "| scene, movers\x27 broad phase, threads | World::step wall ms, before | after | before / after | CPU ms/step (set_pose + step), before | after | wall ms before: AABBs / broad / narrow | after | contacts (before = after) |"
        print "|---|---:|---:|---:|---:|---:|---|---|---|"
        for (i = 1; i <= n; i++) {
            b = order[i] SUBSEP "before"; a = order[i] SUBSEP "after"
            ratio = wall[a] > 0 ? sprintf("%.2fx", wall[b] / wall[a]) : "–"
            same = contacts[a] == contacts[b] ? "yes" : "no: " contacts[b] " / " contacts[a]
            printf "| %s | %.3f | %.3f | %s | %.2f | %.2f | %s | %s | %s (%s) |\n", order[i], wall[b], wall[a], ratio, cpu[b], cpu[a], phases[b], phases[a], contacts[a], same
        }
    }'
