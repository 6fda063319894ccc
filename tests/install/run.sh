#!/usr/bin/env bash
# Installs the build into a temporary prefix, then builds and runs a program
# against it twice: with pkg-config, and with CMake's find_package (shared
# and static).  Each must write exactly one line.  The pkg-config file, the
# header, the library and the CMake package must agree on the version, and
# nothing but the library's files, xlog-recover and xlog-cat is installed
# (no xlog-bench).
set -euo pipefail
build_dir=$1
src_dir=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build_dir" --prefix "$work/prefix" >/dev/null

check_log() { # dir
  local lines
  lines=$(cat "$1"/*.log | wc -l)
  grep -q " installed xlog works: 42$" "$1"/*.log
  [ "$lines" -eq 1 ] || { echo "expected 1 line in $1, got $lines"; exit 1; }
}

export PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig:$work/prefix/lib64/pkgconfig"
export LD_LIBRARY_PATH="$work/prefix/lib:$work/prefix/lib64"
# shellcheck disable=SC2046
cc -o "$work/pc" "$src_dir/consumer.c" $(pkg-config --cflags --libs xlog)
"$work/pc" "$work/logs-pc"
check_log "$work/logs-pc"
echo "pkg-config: ok"

# One version everywhere: the pkg-config file, the installed header, the
# installed library and (below) the CMake package.
version=$(pkg-config --modversion xlog)
printf '%s\n' '#include <stdio.h>' '#include <xlog.h>' \
  'int main(void) { printf("%s %s\n", XLOG_VERSION_STRING, xlog_version()); return 0; }' \
  >"$work/version.c"
# shellcheck disable=SC2046
cc -o "$work/version" "$work/version.c" $(pkg-config --cflags --libs xlog)
got=$("$work/version")
[ "$got" = "$version $version" ] || { echo "pkg-config says $version; header, library: $got"; exit 1; }
echo "version $version: ok"

cmake -S "$src_dir" -B "$work/cm" -DCMAKE_PREFIX_PATH="$work/prefix" -DXLOG_VERSION="$version" >/dev/null
cmake --build "$work/cm" >/dev/null
"$work/cm/consumer_shared" "$work/logs-shared"
check_log "$work/logs-shared"
"$work/cm/consumer_static" "$work/logs-static"
check_log "$work/logs-static"
echo "find_package $version (shared and static): ok"

# A program built with ThreadSanitizer against the installed (plain)
# library, shared and static: no report may come from xlog.
for kind in shared static; do
  if [ $kind = shared ]; then
    libs=$(pkg-config --libs xlog)
  else
    libs="$(pkg-config --variable=libdir xlog)/libxlog.a $(pkg-config --libs --static xlog | sed 's/-lxlog//')"
  fi
  # shellcheck disable=SC2046,SC2086
  cc -fsanitize=thread -g -o "$work/tsan-$kind" "$src_dir/tsan_consumer.c" $(pkg-config --cflags xlog) $libs
  TSAN_OPTIONS="halt_on_error=1 exitcode=66" "$work/tsan-$kind" "$work/logs-tsan-$kind" console \
    >/dev/null 2>"$work/tsan-$kind.err" || { cat "$work/tsan-$kind.err"; echo "tsan ($kind): failed"; exit 1; }
  ! grep -q "ThreadSanitizer" "$work/tsan-$kind.err" || { cat "$work/tsan-$kind.err"; exit 1; }
done
echo "ThreadSanitizer program against the plain library (shared and static): ok"

programs=$(ls "$work/prefix/bin" | tr '\n' ' ')
[ "$programs" = "xlog-cat xlog-recover " ] || { echo "installed programs: $programs"; exit 1; }
out=$("$work/prefix/bin/xlog-cat" --help | head -1)
[ "$out" = "usage: xlog-cat [OPTIONS] FILE..." ] || { echo "xlog-cat --help: $out"; exit 1; }
out=$("$work/prefix/bin/xlog-recover" "$work/logs-pc" "$work/no-persistent-dir")
[ "$out" = "xlog-recover: 0 lines recovered into $work/logs-pc" ] || { echo "xlog-recover: $out"; exit 1; }
echo "bin/ holds xlog-recover and xlog-cat alone, and they run: ok"
