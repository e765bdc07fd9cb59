#!/usr/bin/env bash
# experiments/gpu/check.sh — the one prepared run for a machine with a GPU (issue 15.5): one command,
# finished well inside 8 minutes on an H100 or H200 machine (16 cores), everything it measured under $OUT.
# Build and test on the CPU machine first; run this once there, rerun only to fix what it found, and
# commit what it wrote.
#
#   experiments/gpu/check.sh [--dry-run] [BUILD_DIR]                   build here from source (default build-gpu)
#   experiments/gpu/check.sh [--dry-run] --from-bundle FILE [DIR]      run binaries built on the CPU machine
#   experiments/gpu/check.sh --pack-data                               (on the CPU machine: MNIST only)
#
# On the lent machines (the device tool; 15 minutes of device time in all), after the CPU machine's build
# and tests pass:
#   here:     experiments/gpu/bundle.sh                (about 2 minutes; build-gpu-bundle/, ~35 MiB)
#             experiments/gpu/check.sh --dry-run --from-bundle build-gpu-bundle/lintra-gpu.tar.xz
#   there:    run(command="bash experiments/gpu/check.sh --from-bundle build-gpu-bundle/lintra-gpu.tar.xz",
#                 carry=["build-gpu-bundle"], timeout_s=560)
#   then:     tar -xzf <files_at>/results.tar.gz -C /tmp && cp /tmp/results/* experiments/results/
#
# Two ways to get lintra onto the GPU machine:
#   * from source (a machine with Debian 12's packages): configure with -DLINTRA_CUDA=ON and build only
#     what the steps run. The deps step checks the packages with tools/install-deps.sh --build --check
#     (offline, a second) and, only when some are missing and it runs as root, installs them (a clear
#     failure naming them on a machine without a mirror); then it checks the CUDA toolkit (nvcc).
#   * --from-bundle FILE (the lent H100/H200 machines: their own image, none of lintra's packages, no
#     network): experiments/gpu/bundle.sh, run on the CPU machine, packs the binaries built there (sm_90
#     device code), the shared libraries they load and MNIST into build-gpu-bundle/lintra-gpu.tar.xz,
#     which the device tool carries (`carry: ["build-gpu-bundle"]`). Here it is unpacked into DIR
#     (default /tmp/lintra-gpu), its checksums verified, and the libraries it leaves to this machine —
#     the driver's libcuda, cuBLAS, cuBLASLt, NCCL — found (the loader's cache, the CUDA and driver
#     folders, Python wheels under /opt and /usr); each binary then runs through a wrapper that sets
#     LD_LIBRARY_PATH for it alone (libstdc++ and libgcc_s from the bundle only when this machine's fail).
#   * --pack-data (run on the CPU machine, for the source way) writes build-gpu-data/mnist.tar.gz (the
#     four IDX files, about 11 MB) from this machine's data root; the run unpacks it into BUILD_DIR/data
#     when its own data root lacks MNIST; `lintra data fetch mnist` then verifies every file's sha256.
#
# Steps, each under its own time limit and all under one budget (CHECK_BUDGET seconds, default 460, of
# which the summary keeps the last few), each recorded even when it fails (so one run shows everything):
#   deps / bundle, gpu (nvidia-smi), configure and build (from source only), cuda-tests: every test that
#   needs a GPU — the CUDA kernels against the CPU's (CoreCudaKernels), the device plumbing
#   (CoreCudaDevice), float64 gradchecks of every differentiable op and loss on the GPU (Cuda/
#   AutogradGradcheckOnDevice, Cuda/NnLossesOnDevice), the attention conformance suite on cuda (Cuda/
#   NnAttentionConformance), the models training and generating as on the CPU (Cuda/NnModelsOnDevice), checkpoints
#   between the CPU and the GPU (TrainStrictCheckpoint.Cuda*), and NCCL sums (TrainDistributedNccl, from
#   source with mpirun only; a one-GPU machine skips it: NCCL refuses two ranks on one GPU); on a GPU none
#   may skip, and the summary counts skips; data; bench-kernels|attention|train|generate on cuda (kernels:
#   lintra's matmul at the model's shapes and the causal product against cuBLAS called directly; train:
#   its sgemm column is direct cuBLAS at the model's shapes); a short training run of each MNIST row at paper size with device=cuda (train.steps 20):
#   every kernel of the list has a CUDA version (core/cuda/kernel_table.cpp), so a row that stops names
#   what failed.
# --dry-run (a machine without a GPU, e.g. the CPU machine): the same steps, except that nvidia-smi is
#   not required, the GPU tests must all skip (with their message), and the training rows only resolve
#   their config (--print-config: every override checked against the schema) and show that device=cuda
#   is refused with a message naming the missing GPU; nothing is written to experiments/results.
#
# Writes under BUILD_DIR/gpu-check (or DIR/gpu-check): one log per step, summary.md and summary.json
# (step, status, seconds, last line), the tests' JUnit XML, the benchmarks' JSON and each training run's
# metrics and log. A real run names its results after the GPU (h100, h200: from nvidia-smi):
# gpu-check-<gpu>.md and .json and bench-<bench>-<gpu>.json, copied into experiments/results/. With $OUT
# set (the device tool brings back at most 8 files, 2 folders down), $OUT holds summary.md, summary.json,
# results.tar.gz (the files for experiments/results/) and logs.tar.gz (every log, XML and run; no
# checkpoints).
set -u
CALLER_DIR=$(pwd)
cd "$(dirname "$0")/../.." || exit 1
ROOT=$(pwd)

DRY=0
PACK=0
BUILD=
BUNDLE=
while (($#)); do
  case "$1" in
    --dry-run) DRY=1 ;;
    --pack-data) PACK=1 ;;
    --from-bundle)
      [[ $# -ge 2 ]] || { echo "check.sh: --from-bundle needs the bundle's file" >&2; exit 2; }
      BUNDLE=$2
      shift ;;
    --from-bundle=*) BUNDLE=${1#*=} ;;
    -*) echo "check.sh: unknown option '$1'" >&2; exit 2 ;;
    *) BUILD=$1 ;;
  esac
  shift
done
if [[ -n $BUNDLE ]]; then
  [[ $BUNDLE == /* ]] || BUNDLE=$CALLER_DIR/$BUNDLE
  [[ -f $BUNDLE ]] || { echo "check.sh: no bundle at $BUNDLE (make it with experiments/gpu/bundle.sh on the CPU machine)" >&2; exit 2; }
  BUILD=${BUILD:-/tmp/lintra-gpu}
else
  BUILD=${BUILD:-build-gpu}
fi

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
LOGS=$BUILD/gpu-check
rm -rf "$LOGS"
mkdir -p "$LOGS/results"
START=$(date +%s)
BUDGET=${CHECK_BUDGET:-460}
RESERVE=10 # seconds kept for the summary
JOBS=$(nproc 2>/dev/null || echo 2)
ROWS=()
mode=$([[ $DRY -eq 1 ]] && echo "dry run (no GPU required)" || echo "GPU run")
[[ -n $BUNDLE ]] && mode="$mode from the bundle $(basename "$BUNDLE")"
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

# --- the GPU ------------------------------------------------------------------------------------------
if [[ $DRY -eq 1 ]]; then
  if command -v nvidia-smi >/dev/null 2>&1; then step gpu 30 nvidia-smi; else record gpu "skipped (dry run, no nvidia-smi)" 0; fi
else
  step gpu 30 nvidia-smi
fi
# The results' names: h100, h200, … from the GPU's name (e.g. "NVIDIA H100 80GB HBM3"); "gpu" otherwise.
gpu_name=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1)
GPU_TAG=$(echo "$gpu_name" | grep -o -i -E '\b[a-z][0-9]{2,4}\b' | head -n 1 | tr '[:upper:]' '[:lower:]')
GPU_TAG=${GPU_TAG:-gpu}

# The GPU tests: their binaries (experiments/gpu/gpu-tests.txt, paths in a build; in a bundle, bin/ by
# name) and the gtest filter that picks the tests needing a GPU; in a build ctest -R 'Cuda|Nccl' selects
# the same tests by name.
mapfile -t GPU_TEST_BINARIES < <(grep -v -E '^(#|$)' experiments/gpu/gpu-tests.txt)
GPU_TEST_FILTER='*Cuda*'

if [[ -z $BUNDLE ]]; then
  # --- from source: dependencies, configure, build (only what the steps below run) ------------------
  # The CUDA toolkit is an image install, not a Debian package (DESIGN.md §2): nvcc on PATH or in /usr/local/cuda.
  check_toolkit='nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
[[ -x $nvcc ]] || { echo "no nvcc on PATH or in /usr/local/cuda/bin: the CUDA toolkit is missing"; exit 1; }
"$nvcc" --version | tail -n 2'
  # Check first (fast, offline); install only as root and only when something is missing.
  if ! step deps 20 bash tools/install-deps.sh --build --check && [[ $(id -u) -eq 0 ]]; then
    step deps-install 150 bash tools/install-deps.sh --build
  fi
  step cuda-toolkit 20 bash -c "$check_toolkit"
  export CCACHE_DIR=${CCACHE_DIR:-$BUILD/ccache}
  PATH=$PATH:/usr/local/cuda/bin
  step configure 90 cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DLINTRA_CUDA=ON
  targets=(lintra)
  for t in "${GPU_TEST_BINARIES[@]}"; do targets+=("$(basename "$t")"); done
  if cmake --build "$BUILD" --target help 2>/dev/null | grep -q test_train_distributed_nccl; then
    targets+=(test_train_distributed_nccl)
  fi
  step build 300 cmake --build "$BUILD" -j"$JOBS" --target "${targets[@]}"
  BUILD_OK=$?
  LINTRA=$BUILD/lintra
  mnist_root=${LINTRA_DATA:-$ROOT/data/cache}
  if [[ ! -f $mnist_root/mnist/train-images-idx3-ubyte && -f build-gpu-data/mnist.tar.gz ]]; then
    mkdir -p "$BUILD/data" && tar -xzf build-gpu-data/mnist.tar.gz -C "$BUILD/data" && mnist_root=$BUILD/data
  fi
else
  # --- from the bundle: unpack, verify, find this machine's CUDA libraries, wrap the binaries ---------
  UNPACKED=$BUILD/bundle
  unpack_bundle() {
    rm -rf "$UNPACKED" && mkdir -p "$UNPACKED" || return 1
    if command -v xz >/dev/null 2>&1; then
      tar -xJf "$BUNDLE" -C "$UNPACKED" || return 1
    else  # no xz on this machine: Python's tarfile reads it (lzma is in its standard library)
      echo "no xz here: unpacking with python3's tarfile"
      python3 -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])' "$BUNDLE" "$UNPACKED" || return 1
    fi
    head -n 5 "$UNPACKED/MANIFEST"
    (cd "$UNPACKED" && grep -E '^[0-9a-f]{64}  ' MANIFEST | sha256sum --quiet -c -) || { echo "the bundle's checksums do not match"; return 1; }
    echo "checksums verified: $(grep -c -E '^[0-9a-f]{64}  ' "$UNPACKED/MANIFEST") files"
  }
  step bundle 60 bash -c "$(declare -f unpack_bundle); UNPACKED='$UNPACKED' BUNDLE='$BUNDLE' unpack_bundle"
  BUILD_OK=$?
  # find_lib NAME: the folder holding NAME on this machine — the loader's cache first, then where drivers,
  # the CUDA toolkit and Python wheels (PyTorch's nvidia-* packages) put it.
  find_lib() {
    local hit root
    hit=$(ldconfig -p 2>/dev/null | awk -v n="$1" '$1 == n {print $NF; exit}')
    [[ -n $hit ]] && { dirname "$hit"; return 0; }
    for root in /usr/local/cuda/lib64 /usr/local/cuda/lib /usr/local/cuda/targets /usr/local/nvidia /usr/lib/x86_64-linux-gnu \
                /usr/lib64 /usr/local/lib /opt /usr/lib/python3 /usr/local/lib/python3*; do
      [[ -d $root ]] || continue
      hit=$(find "$root" -maxdepth 10 -name "$1" \( -type f -o -type l \) -print -quit 2>/dev/null)
      [[ -n $hit ]] && { dirname "$hit"; return 0; }
    done
    return 1
  }
  libdirs=$UNPACKED/lib
  {
    echo "this machine: $(. /etc/os-release 2>/dev/null && echo "$PRETTY_NAME"), $(ldd --version 2>/dev/null | head -n 1)"
    for lib in libcuda.so.1 libcublas.so.13 libcublasLt.so.13 libnccl.so.2; do
      if dir=$(find_lib "$lib"); then
        echo "$lib: $dir"
        [[ :$libdirs: == *:$dir:* ]] || libdirs=$libdirs:$dir
      else
        echo "$lib: NOT FOUND on this machine"
      fi
    done
  } >"$LOGS/libs-found.txt" 2>&1
  # Wrappers: each binary with LD_LIBRARY_PATH for itself alone (nvidia-smi, ctest and the shell keep theirs).
  WRAP=$BUILD/bin
  mkdir -p "$WRAP"
  wrap_all() {  # DIRS: (re)writes a wrapper per bundled binary with LD_LIBRARY_PATH=DIRS
    local b
    for b in "$UNPACKED"/bin/*; do
      printf '#!/bin/sh\nLD_LIBRARY_PATH=%s${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} exec %s "$@"\n' "$1" "$b" >"$WRAP/$(basename "$b")"
      chmod +x "$WRAP/$(basename "$b")"
    done
  }
  if ((BUILD_OK == 0)); then
    wrap_all "$libdirs"
    # This machine's libstdc++ first; the bundle's (GCC 12) only when the binaries do not start without it.
    if ! "$WRAP/lintra" --version >>"$LOGS/libs-found.txt" 2>&1; then
      echo "lintra does not start with this machine's libstdc++: trying the bundle's" >>"$LOGS/libs-found.txt"
      libdirs=$libdirs:$UNPACKED/lib-fallback
      wrap_all "$libdirs"
    fi
    {
      echo "LD_LIBRARY_PATH of the binaries: $libdirs"
      echo "ldd $UNPACKED/bin/lintra:"
      LD_LIBRARY_PATH=$libdirs ldd "$UNPACKED/bin/lintra" | sed 's/^/  /'
    } >>"$LOGS/libs-found.txt" 2>&1
  fi
  # The step: every library found (on a dry run the driver's may be missing) and lintra starting.
  libs_ok() {
    local missing
    missing=$(grep -c 'NOT FOUND' "$LOGS/libs-found.txt")
    if [[ $DRY -eq 1 ]]; then missing=$(grep 'NOT FOUND' "$LOGS/libs-found.txt" | grep -v -c '^libcuda\.so'); fi
    ((missing == 0)) && ! grep -q '=> not found' "$LOGS/libs-found.txt" && "$WRAP/lintra" --version
  }
  step cuda-libs 30 bash -c "$(declare -f libs_ok); DRY=$DRY LOGS='$LOGS' WRAP='$WRAP'; cat '$LOGS/libs-found.txt'; libs_ok" || BUILD_OK=1
  LINTRA=$WRAP/lintra
  mnist_root=$UNPACKED/data
fi

# --- the GPU tests --------------------------------------------------------------------------------
if ((BUILD_OK == 0)); then
  if [[ -z $BUNDLE ]]; then
    # -V: the output of every test, so the skip messages are in the log too.
    step cuda-tests 150 ctest --test-dir "$BUILD" -R 'Cuda|Nccl' -V --no-tests=error --output-junit "$LOGS/cuda-tests.xml"
  else
    run_gpu_tests() {  # each binary's GPU tests, its JUnit XML beside the logs; fails when any binary fails
      local rc=0 b
      for b in "${GPU_TEST_BINARIES[@]}"; do
        echo "=== $(basename "$b") --gtest_filter=$GPU_TEST_FILTER"
        "$WRAP/$(basename "$b")" --gtest_filter="$GPU_TEST_FILTER" --gtest_output="xml:$LOGS/$(basename "$b").xml" || rc=1
      done
      return $rc
    }
    step cuda-tests 150 bash -c "$(declare -f run_gpu_tests); $(declare -p GPU_TEST_BINARIES); GPU_TEST_FILTER='$GPU_TEST_FILTER' WRAP='$WRAP' LOGS='$LOGS'; run_gpu_tests"
  fi
  # The GPU tests proper (the others -R selects, e.g. CoreErrors.Cuda…, run anywhere): without a GPU each
  # must skip, on one none may. ctest's lines read "Test #12: CoreCudaKernels.X ... ***Skipped"; gtest's
  # "[ RUN      ] Cuda/…" and "[  SKIPPED ] Cuda/… (0 ms)".
  if [[ -z $BUNDLE ]]; then
    gpu_tests='Test +#[0-9]+: (CoreCuda|Cuda/|TrainStrictCheckpoint\.[A-Za-z]*Cuda|TrainDistributedNccl)'
    # NCCL refuses two ranks on one GPU: with fewer than two, its test skips by design and is not counted.
    if [[ $DRY -eq 0 ]] && (($(nvidia-smi -L 2>/dev/null | grep -c '^GPU') < 2)); then
      gpu_tests='Test +#[0-9]+: (CoreCuda|Cuda/|TrainStrictCheckpoint\.[A-Za-z]*Cuda)'
    fi
    ran=$(grep -c -E "$gpu_tests" "$LOGS/cuda-tests.log" 2>/dev/null)
    skipped=$(grep -c -E "$gpu_tests.*\*\*\*Skipped" "$LOGS/cuda-tests.log" 2>/dev/null)
  else
    ran=$(grep -c -E '^\[ RUN      \] ' "$LOGS/cuda-tests.log" 2>/dev/null)
    skipped=$(grep -c -E '^\[  SKIPPED \] .* \([0-9]+ ms\)$' "$LOGS/cuda-tests.log" 2>/dev/null)
  fi
  if [[ $DRY -eq 1 ]]; then
    # Without a GPU every GPU test must skip, saying why.
    [[ $ran -gt 0 && $skipped == "$ran" ]] && grep -q "no CUDA device visible" "$LOGS/cuda-tests.log" 2>/dev/null &&
      record cuda-tests-skip "0 (all $ran skipped, with the message)" 0 ||
      record cuda-tests-skip "FAILED ($skipped of $ran skipped)" 0
  else
    [[ $ran -gt 0 && $skipped == 0 ]] && record cuda-tests-skip "0 (none of $ran skipped)" 0 ||
      record cuda-tests-skip "FAILED ($skipped of $ran skipped on a GPU machine)" 0
  fi
else
  record cuda-tests "skipped (no binaries: the build or the bundle failed)" 0
fi

# --- data: MNIST (the data root, the carried tarball or the bundle's), its checksums verified -----
export LINTRA_DATA=$mnist_root
((BUILD_OK == 0)) && step data 60 "$LINTRA" data fetch mnist

# --- benchmarks on cuda ---------------------------------------------------------------------------
# Each run: a name (its log and results file), the bench, its time limit and its arguments on the GPU,
# sized to fit the limit (a bench writes its JSON at the end: a run cut short leaves only its log). The
# recurrent rows time at least four whole generations (a warm-up and three): CIFAR-10's 3,072 steps of 16
# layers at batch 256 take seconds each, launch-bound, so that row is causal-linear's alone (Table 2's
# 17.85 images/s is linear's). kernels: the model's products and the causal product against direct
# cuBLAS; attention: the sweep of Figure 1 up to N = 65,536 (the issue's memory-linear check of
# causal-linear); train: the paper's shapes; generate: images/s (Tables 1, 2 and 4: the paper's GPU figures are 142.8 MNIST and
# 17.85 CIFAR-10 images/s) at batch 64 with every protocol, then at large batches for the recurrent ones
# (a GPU's throughput needs them; recomputing softmax would hold 20 GB of scores a layer at 1,024).
bench_runs=("bench-kernels|kernels|60|--min-seconds 0.5"
            "bench-attention|attention|60|--variants softmax,causal-linear,linear,reformer:rounds=1 --min-seconds 0.2"
            "bench-train|train|60|--steps 3"
            "bench-generate|generate|60|--batch-sizes 64 --min-seconds 0 --no-profile --variants causal-linear,stateful-softmax,softmax"
            "bench-generate-large|generate|60|--batch-sizes 1024 --min-seconds 0 --no-profile --variants causal-linear,stateful-softmax"
            "bench-generate-cifar|generate|90|--image cifar --batch-sizes 256 --min-seconds 0 --no-profile --variants causal-linear")
for run in "${bench_runs[@]}"; do
  IFS='|' read -r name bench limit args <<<"$run"
  read -r -a extra <<<"$args"
  if ((BUILD_OK != 0)); then
    record "$name" "skipped (no binaries: the build or the bundle failed)" 0
  elif "$LINTRA" bench "$bench" --help 2>/dev/null | grep -q -- '--device'; then
    if [[ $DRY -eq 1 ]]; then
      expect_failure "$name" "cuda" "$LINTRA" bench "$bench" "${extra[@]}" --device cuda --json "$LOGS/$name.json"
    else
      step "$name" "$limit" "$LINTRA" bench "$bench" "${extra[@]}" --device cuda --json "$LOGS/results/$name-$GPU_TAG.json"
    fi
  else
    echo "== $name: \`lintra bench $bench\` takes no --device: skipped"
    record "$name" "skipped (no --device)" 0
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
if [[ -n $BUNDLE ]]; then  # the binaries' commit (the working tree there may have no .git)
  commit=$(awk '$1 == "commit" {print substr($2, 1, 7); exit}' "$UNPACKED/MANIFEST" 2>/dev/null)
else
  commit=$(git rev-parse --short HEAD 2>/dev/null)
fi
commit=${commit:-?}
total=$(($(date +%s) - START))
{
  echo "# GPU check ($mode) on ${gpu_name:-no GPU}"
  echo
  echo "experiments/gpu/check.sh at commit $commit, $(date -u +%F' '%T) UTC, ${total} s in all, $JOBS cores."
  if [[ -n $BUNDLE && -f $UNPACKED/MANIFEST ]]; then
    echo
    grep -v -E '^[0-9a-f]{64}  ' "$UNPACKED/MANIFEST" | sed 's/^/    /'
  fi
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
  cp -f "$LOGS/summary.md" "$LOGS/results/gpu-check-$GPU_TAG.md"
  cp -f "$LOGS/summary.json" "$LOGS/results/gpu-check-$GPU_TAG.json"
  cp -f "$LOGS"/results/*-"$GPU_TAG".* experiments/results/ 2>/dev/null
fi
# What the device tool brings back: at most 8 files, 2 folders down. Checkpoints stay behind (the
# training rows write none: checkpoint_every 0, but a run's last one would be ~75 MB).
if [[ -n ${OUT:-} ]]; then
  mkdir -p "$OUT"
  cp -f "$LOGS/summary.md" "$LOGS/summary.json" "$OUT/"
  tar -czf "$OUT/results.tar.gz" -C "$LOGS" results
  tar -czf "$OUT/logs.tar.gz" -C "$LOGS" --exclude=results --exclude='*.h5' --exclude='*.h5.*' .
  echo "wrote $OUT: summary.md, summary.json, results.tar.gz, logs.tar.gz"
fi
echo "wrote $LOGS/summary.md and summary.json (${total} s)"
cat "$LOGS/summary.md"
# The exit status: 1 when a step failed or was cut by the budget (its row's status is neither 0 … nor
# "skipped (…)" for a reason other than the budget), so CI's dry run and the GPU run's caller see it.
failed=()
for r in "${ROWS[@]}"; do
  IFS='|' read -r name rc _ <<<"$r"
  if [[ ! $rc =~ ^0($|\ ) && ( ! $rc =~ ^skipped || $rc == *budget* ) ]]; then failed+=("$name ($rc)"); fi
done
if ((${#failed[@]} > 0)); then
  echo "check.sh: ${#failed[@]} step(s) did not pass: ${failed[*]}" >&2
  exit 1
fi
echo "check.sh: every step passed"
