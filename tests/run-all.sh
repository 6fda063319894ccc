#!/usr/bin/env bash
# Builds and runs every test suite: the plain build, ASan+UBSan, TSan, and a
# short fuzzing run.  Ends with one line "N passed, N failed" over all of
# them, so a run that executed no test is visible.
set -u
cd "$(dirname "$0")/.."
jobs=${JOBS:-$(nproc)}
cmake_args=${CMAKE_ARGS:-}
passed=0
failed=0
broken=()

# suite NAME BUILD_DIR TEST_SCALE CC [cmake options...]
suite() {
  local name=$1 dir=$2 scale=$3 cc=$4
  shift 4
  echo "=== $name ($dir) ==="
  mkdir -p "$dir"
  # shellcheck disable=SC2086
  if ! CC=$cc CXX=$( [ "$cc" = clang ] && echo clang++ || echo g++ ) \
       cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo $cmake_args "$@" >"$dir/run-all.configure.log" 2>&1 \
     || ! cmake --build "$dir" -j "$jobs" >"$dir/run-all.build.log" 2>&1; then
    cat "$dir/run-all.configure.log" "$dir/run-all.build.log" 2>/dev/null | tail -40
    echo "$name: build failed"
    broken+=("$name")
    failed=$((failed + 1))
    return
  fi
  local log="$dir/run-all.ctest.log"
  (cd "$dir" && XLOG_TEST_SCALE=$scale ctest --output-on-failure -j 1) 2>&1 | tee "$log"
  local line
  line=$(grep -E '[0-9]+% tests passed, [0-9]+ tests? failed out of [0-9]+' "$log" | tail -1)
  if [ -z "$line" ]; then
    echo "$name: no test summary"
    broken+=("$name")
    failed=$((failed + 1))
    return
  fi
  local f t
  f=$(sed -E 's/.* ([0-9]+) tests? failed out of ([0-9]+).*/\1/' <<<"$line")
  t=$(sed -E 's/.* ([0-9]+) tests? failed out of ([0-9]+).*/\2/' <<<"$line")
  passed=$((passed + t - f))
  failed=$((failed + f))
  [ "$f" -eq 0 ] || broken+=("$name")
}

# XLOG_BUILD_TESTS=ON: a suite whose tests cannot be configured fails
# (scripts/install-deps.sh, which `make test` runs first, installs what they need).
suite "plain" build 1 gcc -DXLOG_BUILD_TESTS=ON
suite "asan+ubsan" build-asan 0.1 gcc -DXLOG_SANITIZE=address -DXLOG_BUILD_PROGRAMS=OFF -DXLOG_BUILD_TESTS=ON
suite "tsan" build-tsan 0.05 gcc -DXLOG_SANITIZE=thread -DXLOG_BUILD_PROGRAMS=OFF -DXLOG_BUILD_TESTS=ON
suite "fuzz (short)" build-fuzz 1 clang -DXLOG_BUILD_FUZZERS=ON -DXLOG_BUILD_TESTS=OFF -DXLOG_BUILD_PROGRAMS=OFF

echo
[ ${#broken[@]} -eq 0 ] || echo "failing suites: ${broken[*]}"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
