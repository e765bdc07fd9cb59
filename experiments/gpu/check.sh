#!/usr/bin/env bash
# experiments/gpu/check.sh — the one prepared run for a machine with a GPU (issue 15.5): one command,
# finished well inside 8 minutes on the H200 machine (16 cores), everything it measured under $OUT.
# Build and test on the CPU machine first; run this once there, rerun only to fix what it found, and
# commit what it wrote.
#
#   experiments/gpu/check.sh [--dry-run] [BUILD_DIR]     (default build-gpu)
#   experiments/gpu/check.sh --pack-data                 (on the CPU machine, before the GPU run)
#
# The GPU machine reaches nothing (no package mirror, no npm) and may lack Debian's packages, so:
#   * --pack-data (run here) writes build-gpu-data/mnist.tar.gz (the four IDX files, about 11 MB) from
#     this machine's data root; the coordinator carries that folder (run's `carry: ["build-gpu-data"]`)
#     and the GPU run unpacks it into BUILD_DIR/data (LINTRA_DATA) when its own data root lacks MNIST;
#     `lintra data fetch mnist` then verifies every file's sha256 without fetching anything;
#   * it checks the packages with tools/install-deps.sh --build --check (offline, a second) and, only
#     when some are missing and it runs as root, installs them with tools/install-deps.sh --build (a
#     clear failure naming them on a machine without a mirror); then it checks the CUDA toolkit (nvcc).
#
# Steps, each under its own time limit and all under one budget (CHECK_BUDGET seconds, default 420, of
# which the summary keeps the last few), each recorded even when it fails (so one run shows everything):
#   deps, gpu (nvidia-smi), configure (-DLINTRA_CUDA=ON), build (lintra and the CUDA tests only),
#   cuda-tests (ctest -R 'Cuda|Nccl': CoreCudaDevice, CoreCudaKernels — the CUDA kernels against the
#   CPU's — and TrainDistributedNccl; on a GPU none may skip, and the summary counts skips), data,
#   bench-kernels|attention|train|generate on cuda where the bench takes --device (all but kernels,
#   whose references are CPU libraries; the summary says it is skipped), and a short training run of each MNIST row at paper
#   size with device=cuda (train.steps 20): every kernel of the list has a CUDA version
#   (core/cuda/kernel_table.cpp), so a row that stops names what failed.
# --dry-run (a machine without a GPU, e.g. the CPU machine): the same steps in BUILD_DIR, except that
#   nvidia-smi is not required, the CUDA tests must all skip (with their message), and the training rows
#   only resolve their config (--print-config: every override checked against the schema) and show that
#   device=cuda is refused with a message naming the missing GPU; nothing is written to experiments/results.
#
# Writes under $OUT/gpu-check (without $OUT: BUILD_DIR/gpu-check): one log per step, summary.md and
# summary.json (step, status, seconds, last line), the CTest JUnit XML, the benchmarks' JSON and each
# training run's directory (metrics.jsonl, train.log); a real run also writes the summary as
# experiments/results/gpu-check-h200.md and .json (and bench-*-h200.json), copied to $OUT/gpu-check/results.
set -u
cd "$(dirname "$0")/../.." || exit 1
ROOT=$(pwd)

DRY=0
PACK=0
BUILD=build-gpu
for arg in "$@"; do
  case "$arg" in
    --dry-run) DRY=1 ;;
    --pack-data) PACK=1 ;;
    -*) echo "check.sh: unknown option '$arg'" >&2; exit 2 ;;
    *) BUILD=$arg ;;
  esac
done

# --- --pack-data: on the CPU machine --------------------------------------------------------------
if [[ $PACK -eq 1 ]]; then
  src=${LINTRA_DATA:-$ROOT/data/cache}/mnist
  for f in train-images-idx3-ubyte train-labels-idx1-ubyte t10k-images-idx3-ubyte t10k-labels-idx1-ubyte; do
    [[ -f $src/$f ]] || { echo "check.sh --pack-data: $src/$f is missing: run 'lintra data fetch mnist' first" >&2; exit 1; }
  done
  mkdir -p build-gpu-data
  tar -czf build-gpu-data/mnist.tar.gz -C "$src/.." --dereference mnist || exit 1
  echo "wrote build-gpu-data/mnist.tar.gz ($(du -h build-gpu-data/mnist.tar.gz | cut -f1)); carry build-gpu-data to the GPU machine"
  exit 0
fi

mkdir -p "$BUILD" || exit 1
BUILD=$(cd "$BUILD" && pwd)
LOGS=${OUT:-$BUILD}/gpu-check
mkdir -p "$LOGS/results"
START=$(date +%s)
BUDGET=${CHECK_BUDGET:-420}
RESERVE=10 # seconds kept for the summary
JOBS=$(nproc 2>/dev/null || echo 2)
ROWS=()
mode=$([[ $DRY -eq 1 ]] && echo "dry run (no GPU required)" || echo "GPU run")
echo "check.sh: $mode, build $BUILD, logs $LOGS, budget ${BUDGET}s, $JOBS cores"

# record NAME STATUS SECONDS: one row of the summary.
record() { ROWS+=("$1|$2|$3"); }

# step NAME LIMIT_SECONDS COMMAND…: runs COMMAND with its output in $LOGS/NAME.log, under the smaller
# of LIMIT and what is left of the budget (a step with under 5 s left is not started); records status
# (124: timed out) and seconds. Returns the status.
step() {
  local name=$1 limit=$2
  shift 2
  local left=$((START + BUDGET - RESERVE - $(date +%s)))
  if ((left < 5)); then
    echo "== $name: skipped, the budget is spent"
    echo "skipped: the budget of ${BUDGET}s is spent" >"$LOGS/$name.log"
    record "$name" "skipped (budget)" 0
    return 125
  fi
  ((limit > left)) && limit=$left
  local t0 rc secs
  t0=$(date +%s)
  echo "== $name (limit ${limit}s): $*"
  timeout --kill-after=5 "$limit" "$@" >"$LOGS/$name.log" 2>&1
  rc=$?
  secs=$(($(date +%s) - t0))
  echo "   status $rc after ${secs}s; last lines:"
  tail -n 5 "$LOGS/$name.log" | sed 's/^/   | /'
  record "$name" "$rc" "$secs"
  return $rc
}

# expect_failure NAME PATTERN COMMAND…: a step that must fail with PATTERN in its output (dry run:
# device=cuda without a GPU); status 0 when it does, 1 otherwise.
expect_failure() {
  local name=$1 pattern=$2
  shift 2
  step "$name" 60 "$@"
  local rc=$?
  if ((rc != 0 && rc != 124 && rc != 125)) && grep -q -- "$pattern" "$LOGS/$name.log"; then
    ROWS[-1]="$name|0 (refused as expected)|${ROWS[-1]##*|}"
  else
    ROWS[-1]="$name|FAILED (expected an error with '$pattern', status $rc)|${ROWS[-1]##*|}"
  fi
}

# --- dependencies ---------------------------------------------------------------------------------
# The CUDA toolkit is an image install, not a Debian package (DESIGN.md §2): nvcc on PATH or in /usr/local/cuda.
check_toolkit='nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
[[ -x $nvcc ]] || { echo "no nvcc on PATH or in /usr/local/cuda/bin: the CUDA toolkit is missing"; exit 1; }
"$nvcc" --version | tail -n 2'
# Check first (fast, offline); install only as root and only when something is missing.
if ! step deps 20 bash tools/install-deps.sh --build --check && [[ $(id -u) -eq 0 ]]; then
  step deps-install 150 bash tools/install-deps.sh --build
fi
step cuda-toolkit 20 bash -c "$check_toolkit"
if [[ $DRY -eq 1 ]]; then
  if command -v nvidia-smi >/dev/null 2>&1; then step gpu 30 nvidia-smi; else record gpu "skipped (dry run, no nvidia-smi)" 0; fi
else
  step gpu 30 nvidia-smi
fi

# --- configure, build (only what the steps below run), the CUDA tests -----------------------------
export CCACHE_DIR=${CCACHE_DIR:-$BUILD/ccache}
PATH=$PATH:/usr/local/cuda/bin
step configure 90 cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DLINTRA_CUDA=ON
targets=(lintra test_core_cuda_device test_core_cuda_kernels)
if cmake --build "$BUILD" --target help 2>/dev/null | grep -q test_train_distributed_nccl; then
  targets+=(test_train_distributed_nccl)
fi
step build 300 cmake --build "$BUILD" -j"$JOBS" --target "${targets[@]}"
BUILD_OK=$?

LINTRA=$BUILD/lintra
if ((BUILD_OK == 0)); then
  # -V: the output of every test, so the skip messages are in the log too.
  step cuda-tests 120 ctest --test-dir "$BUILD" -R 'Cuda|Nccl' -V --no-tests=error --output-junit "$LOGS/cuda-tests.xml"
  # The GPU tests proper (the others -R selects, e.g. CoreErrors.Cuda…, run anywhere): without a GPU
  # each must skip, on one none may.
  gpu_tests='Test +#[0-9]+: (CoreCuda|TrainDistributedNccl)'
  skipped=$(grep -c -E "$gpu_tests.*\*\*\*Skipped" "$LOGS/cuda-tests.log" 2>/dev/null)
  ran=$(grep -c -E "$gpu_tests" "$LOGS/cuda-tests.log" 2>/dev/null)
  if [[ $DRY -eq 1 ]]; then
    # Without a GPU every CUDA test must skip, saying why.
    [[ $skipped == "$ran" ]] && grep -q "no CUDA device visible" "$LOGS/cuda-tests.log" 2>/dev/null &&
      record cuda-tests-skip "0 (all $ran skipped, with the message)" 0 ||
      record cuda-tests-skip "FAILED ($skipped of $ran skipped)" 0
  else
    [[ $skipped == 0 ]] && record cuda-tests-skip "0 (none of $ran skipped)" 0 ||
      record cuda-tests-skip "FAILED ($skipped of $ran skipped on a GPU machine)" 0
  fi
else
  record cuda-tests "skipped (the build failed)" 0
fi

# --- data: MNIST from the data root, else from the carried tarball --------------------------------
mnist_root=${LINTRA_DATA:-$ROOT/data/cache}
if [[ ! -f $mnist_root/mnist/train-images-idx3-ubyte && -f build-gpu-data/mnist.tar.gz ]]; then
  mkdir -p "$BUILD/data" && tar -xzf build-gpu-data/mnist.tar.gz -C "$BUILD/data" && mnist_root=$BUILD/data
fi
export LINTRA_DATA=$mnist_root
((BUILD_OK == 0)) && step data 60 "$LINTRA" data fetch mnist

# --- benchmarks on cuda ---------------------------------------------------------------------------
# Each bench's arguments on the GPU, sized to fit its minute: the attention sweep (Figure 1) up to
# N = 65,536 for the issue's memory-linear check of causal-linear; generation at one large batch
# (Table 4's protocol: images/s), no per-token profile.
declare -A bench_args=([attention]="--variants softmax,causal-linear,linear,reformer:rounds=1 --min-seconds 0.2"
                       [train]="--steps 3"
                       [generate]="--batch-sizes 64 --min-seconds 0 --no-profile --variants causal-linear,stateful-softmax,softmax")
for bench in kernels attention train generate; do
  if ((BUILD_OK == 0)) && "$LINTRA" bench "$bench" --help 2>/dev/null | grep -q -- '--device'; then
    read -r -a extra <<<"${bench_args[$bench]:-}"
    if [[ $DRY -eq 1 ]]; then
      expect_failure "bench-$bench" "cuda" "$LINTRA" bench "$bench" "${extra[@]}" --device cuda --json "$LOGS/bench-$bench.json"
    else
      step "bench-$bench" 60 "$LINTRA" bench "$bench" "${extra[@]}" --device cuda --json "$LOGS/results/bench-$bench-h200.json"
    fi
  else
    echo "== bench-$bench: \`lintra bench $bench\` takes no --device yet: skipped"
    record "bench-$bench" "skipped (no --device yet)" 0
  fi
done

# --- a short training run of each MNIST row at paper size -----------------------------------------
train_args=(device=cuda train.steps=20 train.log_every=5 train.eval_every=10 train.eval_batches=2
            train.checkpoint_every=0 data.eval_size=20)
for row in linear softmax lsh-1 lsh-4; do
  ((BUILD_OK == 0)) || break
  cfg=configs/mnist/paper/$row.yaml
  if [[ $DRY -eq 1 ]]; then
    # The config with every override, checked against the schema (on cpu: --print-config refuses a
    # device this machine lacks), then the real command line, which must refuse cuda naming it.
    step "config-mnist-$row" 30 "$LINTRA" train "$cfg" "${train_args[@]}" device=cpu --print-config
    expect_failure "train-mnist-$row" "cuda:0" "$LINTRA" train "$cfg" "${train_args[@]}" --run-dir "$LOGS/runs/mnist-$row"
  else
    step "train-mnist-$row" 60 "$LINTRA" train "$cfg" "${train_args[@]}" --run-dir "$LOGS/runs/mnist-$row"
  fi
done

# --- the summary ----------------------------------------------------------------------------------
gpu_name=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1)
commit=$(git rev-parse --short HEAD 2>/dev/null || echo '?')
total=$(($(date +%s) - START))
{
  echo "# GPU check ($mode) on ${gpu_name:-no GPU}"
  echo
  echo "experiments/gpu/check.sh at commit $commit, $(date -u +%F' '%T) UTC, ${total} s in all, $JOBS cores."
  echo
  echo "| step | status | seconds | last line |"
  echo "|---|---|---|---|"
  for r in "${ROWS[@]}"; do
    IFS='|' read -r name rc secs <<<"$r"
    last=$(tail -n 1 "$LOGS/$name.log" 2>/dev/null | tr '|' '/' | cut -c1-160)
    echo "| $name | $rc | $secs | ${last:-} |"
  done
} >"$LOGS/summary.md"
json_escape() { sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/\t/ /g' | tr -d '\000-\037'; }
{
  echo "{\"mode\": \"$([[ $DRY -eq 1 ]] && echo dry-run || echo gpu)\", \"gpu\": \"$(echo "${gpu_name:-}" | json_escape)\","
  echo " \"commit\": \"$commit\", \"seconds\": $total, \"cores\": $JOBS, \"steps\": ["
  n=${#ROWS[@]}
  i=0
  for r in "${ROWS[@]}"; do
    IFS='|' read -r name rc secs <<<"$r"
    i=$((i + 1))
    last=$(tail -n 1 "$LOGS/$name.log" 2>/dev/null | cut -c1-300 | json_escape)
    sep=$( ((i < n)) && echo "," || echo "")
    echo "  {\"step\": \"$name\", \"status\": \"$(echo "$rc" | json_escape)\", \"seconds\": $secs, \"last_line\": \"$last\"}$sep"
  done
  echo "]}"
} >"$LOGS/summary.json"
if [[ $DRY -eq 0 ]]; then
  cp -f "$LOGS/summary.md" "$LOGS/results/gpu-check-h200.md"
  cp -f "$LOGS/summary.json" "$LOGS/results/gpu-check-h200.json"
  cp -f "$LOGS"/results/*-h200.* experiments/results/ 2>/dev/null
fi
echo "wrote $LOGS/summary.md and summary.json (${total} s)"
cat "$LOGS/summary.md"
