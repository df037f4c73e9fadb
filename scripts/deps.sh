#!/usr/bin/env bash
# Installs the Debian packages needed to build and test weft, if any are missing. Idempotent.
set -euo pipefail

# libclang-rt-14-dev: libFuzzer and clang's sanitizer runtimes, for the fuzz test (tests/fuzz), and
# for programs built by weft-cc -fsanitize=address/undefined (docs/sanitizers.md).
# lld-14: LLVM's linker, which weft-cc links programs with when it is there (faster than GNU ld).
# libclang-14-dev, liblld-14-dev: clang's and lld's static libraries, which weft-build links to
# compile and link a program in one process (src/instrument/CMakeLists.txt).
# libomp-14-dev: omp.h for OpenMP programs (weft models the runtime itself; docs/openmp.md).
# libz3-dev: the SMT solver that finds input values (docs/inputs.md).
# pkg-config: the install test builds a program with weft.pc (docs/install.md).
# chromium: a headless browser that loads --html reports in tests/report_forms_test.cpp.
# python3-jsonschema: validates --sarif reports against tests/data/sarif-2.1.0-weft.schema.json.
# libglib2.0-dev: a library weft did not compile that synchronises with its own atomics
# (tests/native/glib_counter.c, docs/process-state.md).
# libabsl-dev: Abseil, whose synchronisation weft models (tests/native/absl_*.cpp).
# make: weft-lib builds a library's source tree with it (tests/native/spin_library).
# zlib1g-dev, libtinfo-dev: what LLVM's static Support library links (weft links LLVM's
# symbolizer from the static libraries of llvm-14-dev).
packages=(cmake ninja-build g++ python3 libgtest-dev libgmock-dev libbenchmark-dev
          clang-14 lld-14 libclang-14-dev liblld-14-dev libclang-rt-14-dev llvm-14-dev llvm-14-tools zlib1g-dev libtinfo-dev
          libcli11-dev nlohmann-json3-dev
          gdb libomp-14-dev libz3-dev pkg-config chromium python3-jsonschema libglib2.0-dev
          libabsl-dev make)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg -s "$p" 2>/dev/null | grep -q '^Status: install ok installed'; then
    missing+=("$p")
  fi
done

if [ "${#missing[@]}" -eq 0 ]; then
  echo "deps: all present"
  exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
  echo "deps: missing ${missing[*]}; run scripts/deps.sh as root (or with sudo) to install them" >&2
  exit 2
fi

echo "deps: installing ${missing[*]}"
apt-get update
DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
