#!/usr/bin/env bash
# experiments/gpu/check.sh — the one prepared run for a machine with a GPU (issue 15.5), in under 8
# minutes on one H200. Build and test on the CPU machine first; run this once there, rerun only to fix
# what it found, and commit what it wrote.
#
#   experiments/gpu/check.sh [BUILD_DIR]      (default build-gpu)
#
# Steps, each under its own time limit, each recorded even when it fails (so one run shows everything):
#   1. nvidia-smi, then configure (-DLINTRA_CUDA=ON: no GPU build without CUDA) and build lintra and
#      the CUDA tests;
#   2. every CUDA test (ctest -R Cuda: CoreCudaDevice, CoreCudaKernels — the CUDA kernels against the
#      CPU's), which skip nowhere here because a GPU is visible;
#   3. `lintra bench kernels|attention|generate` on cuda where the bench takes --device (not yet: it
#      says so in the summary);
#   4. a short training run of each MNIST row at paper size with device=cuda (train.steps 20). Until
#      every kernel has a CUDA version (core/cuda/kernel_table.cpp) these stop at the first one without,
#      naming it: the summary lists which.
# Writes experiments/results/gpu-check-h200.md (the summary) and gpu-check-h200.json (step, status,
# seconds), and the logs under $OUT/gpu-check (or build-gpu/gpu-check) for the device tool to bring back.
set -u
cd "$(dirname "$0")/../.."
BUILD=${1:-build-gpu}
LOGS=${OUT:-$BUILD}/gpu-check
RESULTS=experiments/results
mkdir -p "$LOGS" "$RESULTS"
MD=$RESULTS/gpu-check-h200.md
JSON=$RESULTS/gpu-check-h200.json
START=$(date +%s)
ROWS=()

# step NAME LIMIT_SECONDS COMMAND…: runs it with its output in $LOGS/NAME.log, records status and time.
step() {
  local name=$1 limit=$2
  shift 2
  local t0 rc
  t0=$(date +%s)
  echo "== $name (limit ${limit}s): $*"
  timeout "$limit" "$@" >"$LOGS/$name.log" 2>&1
  rc=$?
  local secs=$(($(date +%s) - t0))
  echo "   status $rc after ${secs}s; last lines:"
  tail -n 5 "$LOGS/$name.log" | sed 's/^/   | /'
  ROWS+=("$name|$rc|$secs")
  return $rc
}

step gpu 30 nvidia-smi
step configure 120 cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DLINTRA_CUDA=ON
step build 300 cmake --build "$BUILD" -j16 --target lintra test_core_cuda_device test_core_cuda_kernels
step cuda-tests 120 ctest --test-dir "$BUILD" -R Cuda --output-on-failure

LINTRA=$BUILD/lintra
for bench in kernels attention generate; do
  if "$LINTRA" bench "$bench" --help 2>/dev/null | grep -q -- '--device'; then
    step "bench-$bench" 90 "$LINTRA" bench "$bench" --device cuda --json "$LOGS/bench-$bench-h200.json"
    cp -f "$LOGS/bench-$bench-h200.json" "$RESULTS/bench-$bench-h200.json" 2>/dev/null
  else
    echo "== bench-$bench: \`lintra bench $bench\` takes no --device yet: skipped"
    ROWS+=("bench-$bench|skipped (no --device yet)|0")
  fi
done

for row in linear softmax lsh-1 lsh-4; do
  step "train-mnist-$row" 60 "$LINTRA" train "configs/mnist/paper/$row.yaml" device=cuda train.steps=20 \
    train.log_every=5 train.eval_batches=2 train.checkpoint_every=0 --run-dir "$LOGS/runs/mnist-$row"
done

# --- the summary ----------------------------------------------------------------------------------
{
  echo "# GPU check on $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 || echo '?')"
  echo
  echo "experiments/gpu/check.sh at commit $(git rev-parse --short HEAD 2>/dev/null || echo '?'), $(date -u +%F' '%T) UTC, $(($(date +%s) - START)) s in all."
  echo
  echo "| step | status | seconds | last line |"
  echo "|---|---|---|---|"
  for r in "${ROWS[@]}"; do
    IFS='|' read -r name rc secs <<<"$r"
    last=$(tail -n 1 "$LOGS/$name.log" 2>/dev/null | tr '|' '/' | cut -c1-160)
    echo "| $name | $rc | $secs | ${last:-} |"
  done
} >"$MD"
{
  echo "["
  n=${#ROWS[@]}
  i=0
  for r in "${ROWS[@]}"; do
    IFS='|' read -r name rc secs <<<"$r"
    i=$((i + 1))
    sep=$([ "$i" -lt "$n" ] && echo "," || echo "")
    echo "  {\"step\": \"$name\", \"status\": \"$rc\", \"seconds\": $secs}$sep"
  done
  echo "]"
} >"$JSON"
cp -f "$MD" "$JSON" "$LOGS/" 2>/dev/null
echo "wrote $MD and $JSON ($(($(date +%s) - START)) s)"
