#!/usr/bin/env bash
# experiments/gpu/bundle.sh — packs, on the CPU machine, everything experiments/gpu/check.sh needs to run
# on a GPU machine that has the NVIDIA driver and the CUDA libraries but none of lintra's Debian packages
# and no network (the lent H100/H200 machines: an image of their own, nothing can be fetched there).
# Building there would need every -dev package carried and minutes of the 15 of device time; the
# binaries built here (Debian 12, CUDA 13 toolkit, sm_90 device code for the H100 and H200) run there
# once the shared libraries they load travel with them.
#
#   experiments/gpu/bundle.sh [BUILD_DIR]     (default build: configured with -DLINTRA_CUDA=ON if it is not)
#
# Writes build-gpu-bundle/lintra-gpu.tar.xz (the device tool's `carry: ["build-gpu-bundle"]`, at most
# 64 MiB with the working tree; the script refuses above 56 MiB), holding:
#   bin/           lintra and the binaries of the GPU tests (experiments/gpu/gpu-tests.txt);
#   lib/           every shared library they load but glibc's, the driver's (libcuda) and the CUDA
#                  toolkit's large ones: cuBLAS, cuBLASLt and NCCL (hundreds of MB) are found on the GPU
#                  machine by check.sh; libcudart (under 1 MB) travels;
#   lib-fallback/  libstdc++ and libgcc_s, used there only when that machine's own do not load the binaries;
#   data/mnist/    the four MNIST IDX files (for the training rows and bench train's configs);
#   MANIFEST       the commit, the device code nvcc generated (sm_90 and its PTX), the sha256 of every file.
# Then, on the GPU machine: experiments/gpu/check.sh --from-bundle build-gpu-bundle/lintra-gpu.tar.xz
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
BUILD=${1:-build}
OUTDIR=$ROOT/build-gpu-bundle
LIMIT_MB=56
mapfile -t GPU_TESTS < <(grep -v -E '^(#|$)' experiments/gpu/gpu-tests.txt)
BINARIES=(lintra "${GPU_TESTS[@]}")
# Found on the GPU machine (check.sh), never packed: glibc, the driver, the toolkit's large libraries.
SYSTEM_RE='/(libc|libm|libpthread|librt|libdl|libresolv|libutil)\.so|ld-linux|/libcuda\.so|/libcublas(Lt)?\.so|/libnccl\.so'
FALLBACK_RE='/(libstdc\+\+|libgcc_s)\.so'

if ! grep -q '^CMAKE_CUDA_COMPILER:.*nvcc' "$BUILD/CMakeCache.txt" 2>/dev/null; then
  echo "bundle.sh: $BUILD is not a CUDA build: configuring it with -DLINTRA_CUDA=ON"
  cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DLINTRA_CUDA=ON >/dev/null
fi
targets=()
for b in "${BINARIES[@]}"; do targets+=("$(basename "$b")"); done
cmake --build "$BUILD" -j"$(nproc)" --target "${targets[@]}"

data=${LINTRA_DATA:-$ROOT/data/cache}/mnist
for f in train-images-idx3-ubyte train-labels-idx1-ubyte t10k-images-idx3-ubyte t10k-labels-idx1-ubyte; do
  [[ -f $data/$f ]] || { echo "bundle.sh: $data/$f is missing: run 'lintra data fetch mnist' first" >&2; exit 1; }
done

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/bin" "$stage/lib" "$stage/lib-fallback" "$stage/data/mnist"
for b in "${BINARIES[@]}"; do cp "$BUILD/$b" "$stage/bin/"; done
# Every library the binaries load, resolved on this machine, copied under its soname (the name the
# loader asks for) with links followed.
ldd "${BINARIES[@]/#/$BUILD/}" | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}' | sort -u |
  while read -r soname path; do
    if [[ $path =~ $SYSTEM_RE ]]; then continue; fi
    if [[ $path =~ $FALLBACK_RE ]]; then cp -L "$path" "$stage/lib-fallback/$soname"; else cp -L "$path" "$stage/lib/$soname"; fi
  done
if ldd "${BINARIES[@]/#/$BUILD/}" | grep -q 'not found'; then
  echo "bundle.sh: a library the binaries need is missing here:" >&2
  ldd "${BINARIES[@]/#/$BUILD/}" | grep 'not found' >&2
  exit 1
fi
cp "$data"/*-ubyte "$stage/data/mnist/"

{
  echo "commit $(git rev-parse HEAD)$(git diff --quiet HEAD -- . ':!build-gpu-bundle' || echo ' (with uncommitted changes)')"
  echo "built $(date -u +%F' '%T) UTC on $(uname -m), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
  echo "cuda_code $(grep -rho 'generate-code=[^ ]*' "$BUILD"/core/CMakeFiles/*/flags.make | sort -u | tr '\n' ' ')"
  echo "nvcc $("$(sed -n 's/^CMAKE_CUDA_COMPILER:[A-Z]*=//p' "$BUILD/CMakeCache.txt")" --version | tail -n 1)"
  echo "needs_on_the_gpu_machine libcuda.so.1 libcublas.so.13 libcublasLt.so.13 libnccl.so.2"
  (cd "$stage" && find bin lib lib-fallback data -type f | sort | xargs sha256sum)
} >"$stage/MANIFEST"

mkdir -p "$OUTDIR"
# xz -9: a 64 MiB window, so the CUDA device code every binary links is packed once.
XZ_OPT="-9 -T2" tar -cJf "$OUTDIR/lintra-gpu.tar.xz.part" -C "$stage" .
mv -f "$OUTDIR/lintra-gpu.tar.xz.part" "$OUTDIR/lintra-gpu.tar.xz"
size_mb=$(($(stat -c %s "$OUTDIR/lintra-gpu.tar.xz") / 1048576))
echo "wrote $OUTDIR/lintra-gpu.tar.xz (${size_mb} MiB: $(ls "$stage/lib" | wc -l) libraries, $(ls "$stage/bin" | wc -l) binaries, MNIST)"
if ((size_mb > LIMIT_MB)); then
  echo "bundle.sh: the bundle is over ${LIMIT_MB} MiB: it would not travel with the working tree (64 MiB)" >&2
  exit 1
fi
