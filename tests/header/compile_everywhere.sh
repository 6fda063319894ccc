#!/usr/bin/env bash
# Compiles every_macro.c (every macro and function of xlog.h) with gcc and
# clang, as C99, C11 and GNU C11 and as C++11, C++17 and C++20, with the
# warnings a strict project turns on, as errors.  A header that warns in a
# user's build is a bug of the header.
#   compile_everywhere.sh INCLUDE_DIR
set -euo pipefail
include=$1
here=$(cd "$(dirname "$0")" && pwd)
src=$here/every_macro.c
# Warnings that only optimisation finds (-Wstringop-overread), compiled for
# real: a char array without a NUL through a precision.
optimised=$here/unterminated_array.c
common=(-fsyntax-only -Wall -Wextra -Wpedantic -Werror -I"$include")
checked=0
for cc in gcc clang; do
  command -v $cc >/dev/null || { echo "$cc: not installed, skipped"; continue; }
  extra=()
  [ $cc = clang ] && extra=(-Wreserved-identifier)
  for std in c99 c11 gnu11; do
    $cc -x c -std=$std "${common[@]}" "${extra[@]}" "$src"
    $cc -x c -std=$std -O2 "${common[@]/-fsyntax-only/-c}" -o /dev/null "$optimised"
    checked=$((checked + 1))
  done
  cxx=$([ $cc = gcc ] && echo g++ || echo clang++)
  command -v $cxx >/dev/null || { echo "$cxx: not installed, skipped"; continue; }
  for std in c++11 c++17 c++20; do
    $cxx -x c++ -std=$std "${common[@]}" "${extra[@]}" -Wzero-as-null-pointer-constant "$src"
    $cxx -x c++ -std=$std -O2 "${common[@]/-fsyntax-only/-c}" -o /dev/null "$optimised"
    checked=$((checked + 1))
  done
done
echo "xlog.h compiled without a warning in $checked language modes"
[ $checked -gt 0 ]
