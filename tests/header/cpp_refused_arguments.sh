#!/usr/bin/env bash
# What a C++ user may not pass to XLOG (xlog.h, "C++"): a type printf cannot
# print, or a std::string (string_view) whose conversion is not %s, is a
# compile error whose message names the argument, with g++ and clang++, in
# C++11 and C++17 (C++17 for string_view).
#   cpp_refused_arguments.sh INCLUDE_DIR
set -euo pipefail
include=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cannot="of this call has a type printf cannot print"
not_s="of this call is a string object and its conversion is not %s"
# standard|call|expected message
refused=(
  "c++11|Point p = {1, 2}; xlog_info(\"%d %d\", 1, p);|argument 2 $cannot"
  "c++11|std::vector<int> v; xlog_info(\"%p\", v);|argument 1 $cannot"
  "c++11|xlog_info(\"%d %d %d\", 1, 2, &Point::x);|argument 3 $cannot"
  "c++11|xlog_info(\"%d\", (__int128)1);|argument 1 $cannot"
  "c++11|std::string s; xlog_info(\"%s %d\", \"a\", s);|argument 2 $not_s"
  "c++11|std::string s; xlog_info(\"%ls\", s);|argument 1 $not_s"
  "c++11|std::string s; xlog_info(\"%d %d %d %d %d %d %d %p\", 1, 2, 3, 4, 5, 6, 7, s);|argument 8 $not_s"
  "c++17|std::string_view v; xlog_info(\"%.*s %d\", 1, v, v);|argument 3 $not_s"
  "c++17|std::string_view v; xlog_warn(\"%p\", v);|argument 1 $not_s"
)
checked=0
for cxx in g++ clang++; do
  command -v $cxx >/dev/null || { echo "$cxx: not installed, skipped"; continue; }
  for entry in "${refused[@]}"; do
    IFS='|' read -r std call message <<< "$entry"
    for s in $std $([ $std = c++11 ] && echo c++17); do
      printf '#include <string>\n#include <vector>\n#if __cplusplus >= 201703L\n#include <string_view>\n#endif\n#include <xlog.h>\nstruct Point { int x, y; };\nvoid f();\nvoid f() { %s }\n' \
        "$call" > "$work/bad.cpp"
      if $cxx -std=$s -fsyntax-only -Wno-format -I"$include" "$work/bad.cpp" > "$work/out" 2>&1; then
        echo "FAIL: $cxx -std=$s compiled: $call"; exit 1
      fi
      if ! grep -qF "xlog: $message" "$work/out"; then
        echo "FAIL: $cxx -std=$s did not say \"xlog: $message\" for: $call"; cat "$work/out"; exit 1
      fi
      checked=$((checked + 1))
    done
  done
done
echo "${#refused[@]} refused calls did not compile, each naming its argument, in $checked compilations"
[ $checked -gt 0 ]
