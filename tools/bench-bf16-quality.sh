#!/usr/bin/env bash
# bench-bf16-quality.sh: issue 13.6 — does `matmul_precision: bf16` keep the model's quality? The MNIST
# causal-linear row at CPU scale (CONFIG, default configs/mnist/cpu/linear.yaml: 600 updates, the final
# evaluation on a fixed seeded subset of 1,000 test images) trained with fp32 and with bf16 matmuls,
# SEEDS seeds each, from the same data and initialisation. The verdict is computed: bf16 "holds" when
# its mean final eval bits/dim is within the larger seed spread (max − min over a precision's seeds) of
# the fp32 mean, "does not hold" otherwise. Bits/dim do not depend on the machine's load (same seed,
# same threads: the same numbers); no speed is read from these runs (`lintra bench train
# --matmul-precision bf16` measures that).
# Usage: bash tools/bench-bf16-quality.sh [CONFIG] [SEEDS=2] > experiments/results/bf16-quality-cpu.md
# (EXTRA="key=value …" adds overrides to every run, e.g. a short check: EXTRA="train.steps=20").
set -euo pipefail
cd "$(dirname "$0")/.."
CONFIG=${1:-configs/mnist/cpu/linear.yaml}
SEEDS=${2:-2}
LINTRA=${LINTRA:-build/lintra}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# The last eval line of a run: its bits/dim and step.
final() {
  python3 -c 'import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
e = [r for r in rows if r.get("split") == "eval"][-1]
b, s = e["bits_per_dim"], e["step"]
print(f"{b:.4f} {s}")' "$1/metrics.jsonl"
}

finals=()  # "bits/dim step" of each run: fp32 seeds, then bf16 seeds
commands=()
for p in fp32 bf16; do
  for s in $(seq 1 "$SEEDS"); do
    cmd="$LINTRA train $CONFIG seed=$s matmul_precision=$p train.checkpoint_every=0${EXTRA:+ $EXTRA} --run-dir $out/$p-$s"
    commands+=("$cmd")
    $cmd > "$out/$p-$s.out" 2>&1 || { cat "$out/$p-$s.out" >&2; exit 1; }
    finals+=("$(final "$out/$p-$s")")
  done
done

summary=$(python3 - "$SEEDS" "${finals[@]}" <<'PY'
import sys
seeds = int(sys.argv[1])
vals = [float(v.split()[0]) for v in sys.argv[2:]]
steps = [v.split()[1] for v in sys.argv[2:]]
fp32, bf16 = vals[:seeds], vals[seeds:]
mean = lambda xs: sum(xs) / len(xs)
spread = max(max(fp32) - min(fp32), max(bf16) - min(bf16))
diff = mean(bf16) - mean(fp32)
verdict = "holds" if abs(diff) <= spread else "does not hold"
print(f"| fp32 | {' | '.join(f'{v:.4f}' for v in fp32)} | {mean(fp32):.4f} |")
print(f"| bf16 | {' | '.join(f'{v:.4f}' for v in bf16)} | {mean(bf16):.4f} |")
print()
print(f"bf16 − fp32 = {diff:+.4f} bits/dim against a seed spread of {spread:.4f} (the larger of the two "
      f"precisions' max − min): quality **{verdict}** (rule: |difference of the means| ≤ the seed spread). "
      f"Every run ended at update {steps[0]}.")
PY
)
header="| precision | $(for s in $(seq 1 "$SEEDS"); do printf 'seed %s | ' "$s"; done)mean |"
rule="|---|$(for s in $(seq 1 "$SEEDS"); do printf -- '---:|'; done)---:|"
cat <<EOF2
# bf16 matmuls: final eval bits/dim against fp32

MNIST causal-linear ($CONFIG), final evaluation bits/dim of each run (lower is better):

$header
$rule
$summary

Commands (run directories were temporary):

$(for c in "${commands[@]}"; do echo "    $c"; done)

Machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); bf16 flags: $(grep -o -w -E 'avx512_bf16|amx_bf16' /proc/cpuinfo | sort -u | tr '\n' ' ')
Written by \`bash tools/bench-bf16-quality.sh $CONFIG $SEEDS\` at revision $(git rev-parse --short HEAD), $(date -u '+%Y-%m-%d %H:%M UTC').
EOF2
