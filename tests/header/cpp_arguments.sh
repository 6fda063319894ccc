#!/usr/bin/env bash
# What a C++ user may pass to XLOG (xlog.h, "C++"): capture/capture_cpp.cpp,
# every allowed case, compiles without a warning and writes its lines whole
# through the entry it must, with g++ and clang++ in each C++ standard from
# C++11 they know.
#   cpp_arguments.sh INCLUDE_DIR LIBXLOG_A
set -euo pipefail
include=$1
library=$2
src=$(cd "$(dirname "$0")/../capture" && pwd)/capture_cpp.cpp
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
wraps=-Wl,--wrap=xlog_impl_log_captured
for n in 0 1 2 3 4 5 6 7 8; do wraps="$wraps,--wrap=xlog_impl_log_$n"; done
checked=0
for cxx in g++ clang++; do
  command -v $cxx >/dev/null || { echo "$cxx: not installed, skipped"; continue; }
  for std in c++11 c++14 c++17 c++20; do
    if ! echo 'int main() {}' | $cxx -std=$std -x c++ -fsyntax-only - 2>/dev/null; then
      echo "$cxx -std=$std: not known, skipped"; continue
    fi
    if ! $cxx -std=$std -O2 -g -Wall -Wextra -Werror -I"$include" "$src" "$library" \
         -lpthread -lz -lm "$wraps" -o "$work/capture_cpp" > "$work/out" 2>&1; then
      echo "FAIL: $cxx -std=$std does not compile capture_cpp.cpp:"; cat "$work/out"; exit 1
    fi
    if ! "$work/capture_cpp"; then
      echo "FAIL: $cxx -std=$std"; exit 1
    fi
    checked=$((checked + 1))
  done
done
echo "capture_cpp.cpp compiled and passed in $checked compilers and standards"
[ $checked -gt 0 ]
