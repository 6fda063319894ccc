#!/bin/sh
# The check must find an arrow that points up: with sinks put below
# layouts, the sinks' header that includes the layouts' is one.
#
#   upside_down.sh CHECK LAYERS LIBDIR OBJECT...
set -u
check=$1 layers=$2
shift 2
table=$(mktemp)
trap 'rm -f "$table"' EXIT
awk '$1 == "layouts" { held = $0; next } { print } $1 == "sinks" { print held }' "$layers" >"$table"
out=$(sh "$check" "$table" "$@")
rc=$?
expected="UP: sinks/sink.h includes layouts/layout.h: layouts is above sinks"
if [ $rc -ne 1 ]; then
    echo "check_layers exited $rc on a table with sinks below layouts, not 1"
    echo "$out"
    exit 1
fi
if ! printf '%s\n' "$out" | grep -qFx "$expected"; then
    echo "check_layers did not report: $expected"
    echo "$out"
    exit 1
fi
echo "found: $expected"
