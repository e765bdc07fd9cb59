#!/usr/bin/env bash
# fuzz.sh: builds the libFuzzer targets of fuzz/ (clang-14, AddressSanitizer + UndefinedBehaviorSanitizer,
# in build-fuzz/) and runs each for SECONDS seconds. Fails on any crash, hang, leak, out-of-memory
# or sanitizer report: the input that caused it is left in build-fuzz/artifacts/<target>/.
# Each target starts from its committed seeds (fuzz/corpus/<target>/, never written) plus what earlier
# runs found (build-fuzz/corpus/<target>/, where new inputs go), so repeated runs resume.
# Usage: bash tools/fuzz.sh [SECONDS [TARGET...]]   (default: 60 seconds, every target)
# Extra libFuzzer flags: FUZZ_FLAGS="-max_total_time=… -runs=…" (e.g. -jobs); LINTRA_FUZZ_BUILD=DIR.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true
all=(config idx cifar speech_manifest wav checkpoint)
targets=("$@")
[[ ${#targets[@]} -gt 0 ]] || targets=("${all[@]}")
build=${LINTRA_FUZZ_BUILD:-build-fuzz}

CC=clang-14 CXX=clang++-14 cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLINTRA_FUZZ=ON \
  -DLINTRA_CUDA=OFF -DLINTRA_BUILD_TESTS=OFF > "$build-configure.log" 2>&1 || { cat "$build-configure.log"; exit 1; }
cmake --build "$build" --target fuzz -j"$(nproc)"

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:strict_string_checks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
# Leaks inside HDF5 itself on corrupt files, each with its reason: fuzz/lsan.supp.
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$PWD/fuzz/lsan.supp:print_suppressions=0}
failed=()
for t in "${targets[@]}"; do
  [[ -x "$build/fuzz/fuzz_$t" ]] || { echo "fuzz.sh: no target '$t' (targets: ${all[*]})" >&2; exit 2; }
  mkdir -p "$build/corpus/$t" "$build/artifacts/$t"
  dict=()
  [[ -f "fuzz/dict/$t.dict" ]] && dict=(-dict="fuzz/dict/$t.dict")
  log="$build/fuzz-$t.log"
  echo "== fuzz_$t for ${seconds} s"
  # -timeout: an input taking 10 s is a hang; -rss_limit_mb: 2 GiB is an out-of-memory.
  if "$build/fuzz/fuzz_$t" "$build/corpus/$t" "fuzz/corpus/$t" "${dict[@]}" -max_total_time="$seconds" \
      -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$build/artifacts/$t/" \
      ${FUZZ_FLAGS:-} > "$log" 2>&1; then
    runs=$(grep -m1 'stat::number_of_executed_units' "$log" | awk '{print $2}')
    secs=$(grep -m1 -oE 'runs in [0-9]+ second' "$log" | awk '{print $3}')
    echo "   ok: ${runs:-?} executions in ${secs:-?} s; $(grep -E '^#[0-9]+.*(DONE|pulse)' "$log" | tail -1 | sed 's/^#[0-9]* *//')"
  else
    failed+=("$t")
    echo "   FAILED (log: $log, input: $build/artifacts/$t/):"
    grep -E 'ERROR|FUZZ_CHECK|SUMMARY|runtime error|Test unit written' "$log" | head -20 || tail -30 "$log"
  fi
done
if [[ ${#failed[@]} -gt 0 ]]; then
  echo "fuzz.sh: ${#failed[@]} target(s) failed: ${failed[*]}" >&2
  exit 1
fi
echo "fuzz.sh: ${#targets[@]} target(s), ${seconds} s each, no finding"
