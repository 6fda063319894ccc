#!/bin/sh
# make_locales.sh DIR SOURCES - builds the locales test_format compares with
# glibc in (digit grouping, decimal points of several bytes) into DIR, with
# localedef from glibc's locale sources, so that neither root nor installed
# locales are needed; SOURCES holds xlog's own (xlog_numeric).  Built locales
# are kept for the next run.  One that cannot be built is left out, and
# test_format says which cases it skipped; this script never fails for it.
dir=$1
sources=$2
mkdir -p "$dir" || exit 1
if ! command -v localedef >/dev/null 2>&1; then
    echo "make_locales: localedef not found: test_format will skip its locale cases"
    exit 0
fi
# localedef exits with 1 when it only warned and did write the locale, so
# the locale's files, not the status, tell whether it was built.
build() { # name, then localedef's options
    name=$1
    shift
    [ -f "$dir/$name/LC_NUMERIC" ] && return
    localedef "$@" "$dir/$name" >/dev/null 2>&1
    [ -f "$dir/$name/LC_NUMERIC" ] || echo "make_locales: could not build $name"
}
build de_DE.UTF-8 -i de_DE -f UTF-8
build fr_FR.UTF-8 -i fr_FR -f UTF-8
build en_IN.UTF-8 -i en_IN -f UTF-8
build ps_AF.UTF-8 -i ps_AF -f UTF-8
build xlog_numeric.UTF-8 -c -i "$sources/xlog_numeric" -f UTF-8
exit 0
