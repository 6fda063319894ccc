#!/usr/bin/env bash
# -Wformat checks an XLOG call as it checks printf, in every language mode:
# a C11 call site that captures its scalar arguments itself (xlog.h,
# "Capture at the call site") still names the variable-argument function
# with the format attribute, so each bad call below gives the same -Wformat
# diagnostics as the same call compiled as C99 (today's path), at least one;
# and as C++ (g++, clang++), where XLOG's templates pass each argument to it
# as printf sees it.
#   format_still_checked.sh INCLUDE_DIR
set -euo pipefail
include=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bad_calls=(
  'xlog_info("%d", "text");'          # a string where %d reads an int
  'xlog_info("%s", 42);'              # an int (a slot) where %s reads a string
  'xlog_info("%d %d", 1);'            # a conversion without its argument
  'xlog_info("%d", 1, 2);'            # an argument without its conversion
  'xlog_info("%ld", 1);'              # an int where %ld reads a long
  'xlog_info("%f %d", 1, 2.0);'       # an int and a double swapped
  'xlog_context_set("k", "%d", "t");' # a context's value (xlog.h, "Context") as a call's
  'xlog_context_set("k", "%s %d", "t");'
)
# Diagnostics of -Wformat (and -Wformat-extra-args) in a compiler's output.
count_format_diagnostics() {
  grep -cE '\[-W(error=)?format[a-z-]*=?\]' "$1" || true
}
checked=0
for cc in gcc clang; do
  command -v $cc >/dev/null || { echo "$cc: not installed, skipped"; continue; }
  for i in "${!bad_calls[@]}"; do
    printf '#include <xlog.h>\nvoid f(void);\nvoid f(void) { %s }\n' "${bad_calls[$i]}" > "$work/bad.c"
    expected=""
    for std in c99 c11 gnu11 c17; do
      if $cc -x c -std=$std -fsyntax-only -Wformat -Wno-unused -I"$include" "$work/bad.c" \
            > "$work/out" 2>&1; then :; fi
      n=$(count_format_diagnostics "$work/out")
      if [ "$n" -lt 1 ]; then
        echo "FAIL: $cc -std=$std gave no -Wformat diagnostic for: ${bad_calls[$i]}"; cat "$work/out"; exit 1
      fi
      [ -z "$expected" ] && expected=$n
      if [ "$n" != "$expected" ]; then
        echo "FAIL: $cc -std=$std gave $n -Wformat diagnostics, C99 gave $expected, for: ${bad_calls[$i]}"
        cat "$work/out"; exit 1
      fi
      checked=$((checked + 1))
    done
  done
done
# In C++ (xlog.h, "C++") the arguments go to the variable-argument function
# as printf sees them: the same bad calls warn, in every standard alike, and
# a std::string or a string_view for %s, or an enum for %d, does not.
good_cpp_calls=(
  'std::string s = "a"; xlog_info("%s %d", s, 1);'
  'enum class E : long { x }; xlog_info("%ld %s", E::x, std::string("b"));'
  '#if __cplusplus >= 201703L\nstd::string_view v = "c"; xlog_info("[%s]", v);\n#endif'
)
for cxx in g++ clang++; do
  command -v $cxx >/dev/null || { echo "$cxx: not installed, skipped"; continue; }
  for i in "${!bad_calls[@]}"; do
    printf '#include <xlog.h>\nvoid f();\nvoid f() { %s }\n' "${bad_calls[$i]}" > "$work/bad.cpp"
    expected=""
    for std in c++11 c++17 c++20; do
      if $cxx -std=$std -fsyntax-only -Wformat -Wno-unused -I"$include" "$work/bad.cpp" \
            > "$work/out" 2>&1; then :; fi
      n=$(count_format_diagnostics "$work/out")
      if [ "$n" -lt 1 ]; then
        echo "FAIL: $cxx -std=$std gave no -Wformat diagnostic for: ${bad_calls[$i]}"; cat "$work/out"; exit 1
      fi
      [ -z "$expected" ] && expected=$n
      if [ "$n" != "$expected" ]; then
        echo "FAIL: $cxx -std=$std gave $n -Wformat diagnostics, C++11 gave $expected, for: ${bad_calls[$i]}"
        cat "$work/out"; exit 1
      fi
      checked=$((checked + 1))
    done
  done
  for call in "${good_cpp_calls[@]}"; do
    printf '#include <string>\n#if __cplusplus >= 201703L\n#include <string_view>\n#endif\n#include <xlog.h>\nvoid f();\nvoid f() {\n%b\n}\n' \
      "$call" > "$work/good.cpp"
    for std in c++11 c++17 c++20; do
      if ! $cxx -std=$std -fsyntax-only -Wall -Wextra -Werror -I"$include" "$work/good.cpp" \
            > "$work/out" 2>&1; then
        echo "FAIL: $cxx -std=$std warned about: $call"; cat "$work/out"; exit 1
      fi
      checked=$((checked + 1))
    done
  done
  # The C++ scoped context (xlog.h, "Context") checks its value as
  # xlog_context_set does.
  printf '#include <xlog.h>\nvoid f();\nvoid f() { xlog_context_scope s("k", "%%d", "t"); }\n' \
    > "$work/bad.cpp"
  for std in c++11 c++17 c++20; do
    if $cxx -std=$std -fsyntax-only -Wformat -Wno-unused -I"$include" "$work/bad.cpp" \
          > "$work/out" 2>&1; then :; fi
    if [ "$(count_format_diagnostics "$work/out")" -lt 1 ]; then
      echo "FAIL: $cxx -std=$std gave no -Wformat diagnostic for xlog_context_scope"
      cat "$work/out"; exit 1
    fi
    checked=$((checked + 1))
  done
done
echo "-Wformat saw each of ${#bad_calls[@]} bad calls, and none of ${#good_cpp_calls[@]} good C++ calls, in $checked compilations"
[ $checked -gt 0 ]
