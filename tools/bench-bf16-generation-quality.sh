#!/usr/bin/env bash
# bench-bf16-generation-quality.sh: what do bf16 weights on the compiled recurrent engine (the
# generation path, nn/models/image_recurrent_engine.h; `lintra bench generate` rows *-bf16) cost in
# model quality? CONFIG (default configs/mnist/cpu/linear.yaml) is trained with SEEDS seeds; each final
# checkpoint is scored on the evaluation subset token by token on the engine, with float32 weights and
# with bf16 weights (`lintra eval --engine f32|bf16`), and by the batch model (`lintra eval`). The verdict
# is computed: bf16 weights "hold" when every seed's |bf16 − f32| is within the seed spread of the f32
# scores (max − min), "do not hold" otherwise. No speed is read from these runs.
# Usage: bash tools/bench-bf16-generation-quality.sh [CONFIG] [SEEDS=3] > experiments/results/bf16-generation-quality-cpu.md
# (EXTRA="key=value …" adds overrides to every training run, e.g. a short check: EXTRA="train.steps=20").
set -euo pipefail
cd "$(dirname "$0")/.."
CONFIG=${1:-configs/mnist/cpu/linear.yaml}
SEEDS=${2:-3}
LINTRA=${LINTRA:-build/lintra}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

bits() { sed -n 's/^ *bits_per_dim *//p' "$1"; }

commands=()
scores=()  # per seed: "batch f32 bf16"
for s in $(seq 1 "$SEEDS"); do
  run="$out/seed-$s"
  cmd="$LINTRA train $CONFIG seed=$s${EXTRA:+ $EXTRA} --run-dir $run"
  commands+=("$cmd")
  $cmd > "$out/train-$s.out" 2>&1 || { cat "$out/train-$s.out" >&2; exit 1; }
  row=""
  for e in "" "--engine f32" "--engine bf16"; do
    cmd="$LINTRA eval $run${e:+ $e}"
    commands+=("$cmd")
    $cmd > "$out/eval.out" 2>&1 || { cat "$out/eval.out" >&2; exit 1; }
    row="$row $(bits "$out/eval.out")"
  done
  scores+=("$row")
  evaluated=$(head -1 "$out/eval.out" | sed -E 's/.*\), (.*) on ([0-9]+ batches of [0-9]+).*/\1, \2/')
done

summary=$(python3 - "${scores[@]}" <<'PY'
import sys
rows = [[float(x) for x in r.split()] for r in sys.argv[1:]]
f32 = [r[1] for r in rows]
spread = max(f32) - min(f32)
worst = max(abs(r[2] - r[1]) for r in rows)
for i, (batch, e32, e16) in enumerate(rows, 1):
    print(f"| {i} | {batch:.4f} | {e32:.4f} | {e16:.4f} | {e16 - e32:+.4f} |")
print()
verdict = "hold" if worst <= spread else "do not hold"
print(f"Largest |bf16 − f32| {worst:.4f} bits/dim against a seed spread of {spread:.4f} (max − min of the f32 "
      f"scores): bf16 weights **{verdict}** (rule: every seed's |bf16 − f32| ≤ the seed spread).")
PY
)
cat <<EOF2
# bf16 weights on the recurrent engine: eval bits/dim against float32

$CONFIG, trained with $SEEDS seeds; each final checkpoint scored on ${evaluated} (lower is better):
by the batch model, and token by token on the compiled recurrent engine (the generation path) with
float32 and with bf16 weights.

| seed | batch model | engine, f32 weights | engine, bf16 weights | bf16 − f32 |
|---:|---:|---:|---:|---:|
$summary

Commands (run directories were temporary):

$(for c in "${commands[@]}"; do echo "    $c"; done)

Machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')
Written by \`bash tools/bench-bf16-generation-quality.sh $CONFIG $SEEDS\` at revision $(git rev-parse --short HEAD), $(date -u '+%Y-%m-%d %H:%M UTC').
EOF2
