#!/usr/bin/env bash
# bench-data-parallel.sh: issue 16.5 — data-parallel training on this machine's cores, the paper's MNIST
# causal-linear row (CONFIG, default configs/mnist/paper/linear.yaml: 8 layers × 8 heads × 32, the
# paper's global batch 10), two ways:
#   A. 1 rank  × 2 threads × batch BATCH      (`lintra train … threads=2`)
#   B. 2 ranks × 1 thread  × batch BATCH / 2  (`mpirun -np 2 lintra train … threads=1`)
# Both take the same updates on the same samples. Measured: seconds per update over updates
# WARM+1 … STEPS (metrics.jsonl's train_seconds, which every rank agrees on: the slowest rank's), and for
# B rank 0's seconds inside MPI calls over the same updates (metrics.jsonl's comm_seconds: the gradient
# sum, the loss/metric sums and the per-update stop/time agreement, waiting for the slower rank included),
# plus each rank's total from train.log. No evaluation or checkpoint inside the measured updates.
# Usage: bash tools/bench-data-parallel.sh [STEPS=20] [WARM=5] [CONFIG] [BATCH=10] \
#          > experiments/results/data-parallel-cpu.md
# (the CPU-scale row: `bash tools/bench-data-parallel.sh 40 10 configs/mnist/cpu/linear.yaml 8`).
# Run it alone on the machine (it reads `uptime` before and after to show that).
set -euo pipefail
cd "$(dirname "$0")/.."
STEPS=${1:-20}
WARM=${2:-5}
CONFIG=${3:-configs/mnist/paper/linear.yaml}
BATCH=${4:-10}
(( BATCH % 2 == 0 )) || { echo "bench-data-parallel.sh: the global batch $BATCH does not split over 2 ranks" >&2; exit 2; }
LINTRA=${LINTRA:-build/lintra}
MPIRUN=${MPIRUN:-mpirun --allow-run-as-root --oversubscribe}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
common="$CONFIG train.steps=$STEPS train.log_every=1 train.eval_every=0 train.checkpoint_every=0 data.eval_size=20"

# The train line of update $2 in run directory $1, field $3.
field() {
  python3 -c 'import json,sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    if r.get("split") == "train" and int(r["step"]) == int(sys.argv[2]):
        print(r.get(sys.argv[3], 0)); break' "$1/metrics.jsonl" "$2" "$3"
}
# The model's size as the resolved config gives it: layers × heads × d_query, pixels.
model_line() {
  $LINTRA train "$CONFIG" --print-config | awk '/^  layers:/ {l = $2} /^  heads:/ {h = $2} /^  d_query:/ {q = $2}
    END {printf "%s layers × %s heads × %s, 784 pixels, RAdam", l, h, q}'
}
per_update() { python3 -c "print(f'{($(field "$1" "$STEPS" train_seconds) - $(field "$1" "$WARM" train_seconds)) / ($STEPS - $WARM):.4f}')"; }

load_before=$(uptime)
cmd_a="$LINTRA train $common threads=2 data.batch_size=$BATCH --run-dir $out/a"
cmd_b="$MPIRUN -np 2 $LINTRA train $common threads=1 data.batch_size=$((BATCH / 2)) --run-dir $out/b"
$cmd_a > "$out/a.out" 2>&1
$cmd_b > "$out/b.out" 2>&1
load_after=$(uptime)

a=$(per_update "$out/a")
b=$(per_update "$out/b")
comm=$(python3 -c "print(f'{($(field "$out/b" "$STEPS" comm_seconds) - $(field "$out/b" "$WARM" comm_seconds)) / ($STEPS - $WARM):.4f}')")
cat <<EOF
# Data-parallel training on 2 cores: 2 ranks × 1 thread against 1 rank × 2 threads

MNIST causal-linear ($CONFIG: $(model_line)),
global batch $BATCH, seconds per update over updates $((WARM + 1))–$STEPS.

| run | command | s / update | communicating (rank 0) |
|---|---|---|---|
| 1 rank × 2 threads × batch $BATCH | \`$cmd_a\` | $a | — |
| 2 ranks × 1 thread × batch $((BATCH / 2)) | \`$cmd_b\` | $b | $comm s / update ($(python3 -c "print(f'{100 * $comm / $b:.1f}')")%) |

2 ranks take $(python3 -c "print(f'{$b / $a:.2f}')")× the time per update of 1 rank with 2 threads.
Rank 0's time inside MPI calls includes waiting for the slower rank (the sum is a barrier). Each
rank over the whole run (train.log):

    $(grep -h "communication in this process" "$out/b/train.log" | sed 's/^.*communication/communication/')

Machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); $(mpirun --version | head -1).
Load before: $load_before
Load after:  $load_after
Written by \`bash tools/bench-data-parallel.sh $STEPS $WARM\` at revision $(git rev-parse --short HEAD), $(date -u '+%Y-%m-%d %H:%M UTC').
EOF
