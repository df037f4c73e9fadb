#!/usr/bin/env bash
# Installs weft from a build tree into a temporary prefix, moves the installed tree elsewhere,
# and uses it with neither the build nor the source tree on any path: `weft check` on an
# installed example, the example project examples/installed-package (find_package(weft),
# weft_add_test, WEFT_TEST in GoogleTest) through its ctest, and pkg-config; then builds the
# Debian package (cpack -G DEB), checks its dependencies and uses its files where unpacked.
# Usage: install_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
source=$(cd "$2" && pwd)
work=$(mktemp -d /tmp/weft-install-test.XXXXXX)
trap '[ -n "${WEFT_KEEP_INSTALL_TEST:-}" ] || rm -rf "$work"' EXIT
fail() {
  echo "install test: FAILED: $*" >&2
  exit 1
}

cmake --install "$build" --prefix "$work/first" > "$work/install.log" ||
  { cat "$work/install.log"; fail "cmake --install failed"; }
for f in bin/weft bin/weft-cc bin/weft-c++ lib/weft/libweft_pass.so lib/weft/libweft_rt.a \
         lib/weft/openmp/libomp.a lib/weft/include/weft/weft.h lib/weft/libweft.a \
         include/weft/weft.hpp include/weft/gtest.hpp lib/cmake/weft/weftConfig.cmake \
         lib/pkgconfig/weft.pc share/doc/weft/README.md share/weft/examples/bank_transfer.c; do
  [ -e "$work/first/$f" ] || fail "$f was not installed"
done
# weft-build, which runs weft check's builds in one process, where the build tree has one.
[ ! -x "$build/bin/weft-build" ] || [ -x "$work/first/lib/weft/weft-build" ] ||
  fail "lib/weft/weft-build was not installed"

# Only the public API's headers and what they include: not the driver's, the protocol's or the
# hook ABI's.
for f in include/weft/driver include/weft/runtime/native_protocol.hpp include/weft/runtime/hooks.h; do
  [ ! -e "$work/first/$f" ] || fail "$f was installed, but it is not part of the public API"
done

# Nothing installed names the build or the source tree: no text file, and no run path.
if grep -rIl -e "$build" -e "$source" "$work/first"; then
  fail "the installed files above name the build or source tree"
fi
for f in "$work/first/bin/weft" "$work/first/lib/weft/libweft_pass.so"; do
  if readelf -d "$f" | grep -E 'R(UN)?PATH' | grep -q -e "$build" -e "$source"; then
    fail "$f has a run path into the build or source tree"
  fi
done

# Moved: the wrappers, the CMake package and weft.pc find everything relative to themselves.
mv "$work/first" "$work/moved"
prefix=$work/moved
clean_env=(env -i HOME="$work" PATH="$prefix/bin:/usr/bin:/bin" LANG=C.UTF-8)

version=$("${clean_env[@]}" weft --version)
[[ $version =~ ^weft\ [0-9]+\.[0-9]+\.[0-9]+\ \(built\ for\ LLVM\ 14\. ]] ||
  fail "weft --version printed '$version'"

cd "$work"
set +e
"${clean_env[@]}" weft check -q "$prefix/share/weft/examples/bank_transfer.c" > check.txt 2>&1
status=$?
set -e
[ "$status" -eq 1 ] || { cat check.txt; fail "weft check on the installed example exited $status, not 1"; }
grep -q "BUG: assertion failure" check.txt || { cat check.txt; fail "weft check reported no assertion failure"; }

# The example project, against the installed package only.
"${clean_env[@]}" cmake -S "$prefix/share/weft/examples/installed-package" -B consumer -G Ninja \
  -DCMAKE_PREFIX_PATH="$prefix" > consumer-configure.txt 2>&1 ||
  { cat consumer-configure.txt; fail "configuring the example project failed"; }
"${clean_env[@]}" cmake --build consumer > consumer-build.txt 2>&1 ||
  { cat consumer-build.txt; fail "building the example project failed"; }
set +e
"${clean_env[@]}" ctest --test-dir consumer --output-junit "$work/junit.xml" > consumer-test.txt 2>&1
status=$?
set -e
[ "$status" -ne 0 ] || { cat consumer-test.txt; fail "the example's ctest passed, but two of its tests have bugs"; }
# Each test's result, from ctest's JUnit report: exactly the two with bugs fail.
python3 - "$work/junit.xml" <<'PY' || { cat consumer-test.txt; fail "the example's tests had other results"; }
import sys, xml.etree.ElementTree as ET
cases = {c.get("name"): c for c in ET.parse(sys.argv[1]).getroot().iter("testcase")}
want = {"racy_counter": "fail", "locked_counter": "pass",
        "Account.ConcurrentDepositsAddUp": "pass", "Account.TheBalanceNeverGoesNegative": "fail"}
ok = set(cases) == set(want)
for name, case in cases.items():
    got = "fail" if case.find("failure") is not None else "pass"
    out = case.findtext("system-out") or ""
    print(f"{name}: {got}")
    ok &= got == want.get(name)
    # A failure carries weft's report: the bug and its interleaving.
    if got == "fail":
        ok &= "interleaving" in out.lower() and "bug" in out.lower()
sys.exit(0 if ok else 1)
PY

# pkg-config, for builds that do not use CMake: a test of the in-process API that finds its bug.
cat > api.cpp <<'CPP'
#include <weft/weft.hpp>
#include <cstdio>
int main() {
  weft::Result r = weft::explore([] {
    weft::shared<int> n{0};
    weft::thread t([&] { n = n + 1; });
    n = n + 1;
    t.join();
    WEFT_ASSERT(n == 2);
  });
  std::printf("%s\n", r.ok() ? "no bug" : "bug");
  return r.ok() ? 0 : 1;
}
CPP
flags=$("${clean_env[@]}" PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs weft) ||
  fail "pkg-config does not find weft"
# shellcheck disable=SC2086
g++ -std=c++20 api.cpp $flags -o api || fail "building with pkg-config's flags ($flags) failed"
set +e
./api > api.txt
status=$?
set -e
[ "$status" -eq 1 ] && grep -qx bug api.txt || fail "the pkg-config program did not find its bug"
# The Debian package: its dependencies, and its files used from where they are unpacked.
cpack --config "$build/CPackConfig.cmake" -G DEB -B "$work/deb" > cpack.txt 2>&1 ||
  { cat cpack.txt; fail "cpack -G DEB failed"; }
deb=$(ls "$work"/deb/weft_*_amd64.deb)
depends=$(dpkg-deb -f "$deb" Depends)
for package in clang-14 libllvm14 libz3-4; do
  [[ ", $depends," == *", $package,"* ]] || fail "the package does not depend on $package: $depends"
done
# llvm-symbolizer is for AddressSanitizer's own reports only (weft symbolizes in its process).
recommends=$(dpkg-deb -f "$deb" Recommends)
[[ ", $recommends," == *", llvm-14,"* ]] || fail "the package does not recommend llvm-14: $recommends"
dpkg-deb -x "$deb" "$work/unpacked"
[ -x "$work/unpacked/usr/bin/weft-cc" ] || fail "the package has no /usr/bin/weft-cc"
"${clean_env[@]}" "$work/unpacked/usr/bin/weft-cc" "$prefix/share/weft/examples/bank_transfer.c" \
  -o bank_from_deb || fail "the packaged weft-cc cannot build the example"
set +e
"${clean_env[@]}" "$work/unpacked/usr/bin/weft" run -q ./bank_from_deb > deb-run.txt 2>&1
status=$?
set -e
[ "$status" -eq 1 ] || { cat deb-run.txt; fail "the packaged weft exited $status on the example, not 1"; }
echo "install test: passed"
