#!/usr/bin/env bash
# install-deps.sh - installs the Debian or Ubuntu packages that the build and
# the tests need, and only those that are missing.
#
# Why it exists: `make test` must work on a fresh machine, so it runs this
# first, and so does .ci/run; the list of packages below is the only one in
# the project.  (`make run` and `make install` need none of this beyond a C
# compiler, CMake and zlib.)
#
# How it works: each package of the list is looked up in dpkg's database, so
# a machine that has everything is left alone and nothing is downloaded.
# clang's runtime package is named after clang's major version, so its name is
# worked out from the clang that is installed (or, when clang is missing, the
# one apt would install); where no such package exists (older releases), the
# runtime comes with clang itself.  What is missing is installed with apt-get,
# without questions, when the script runs as root or sudo needs no password.
# Otherwise it prints the command that installs it and exits with status 1.
#
# Usage: scripts/install-deps.sh [--dry-run]
#   --dry-run  print what is missing and the command that would install it;
#              install nothing (exit status 1 when something is missing)
set -euo pipefail

# One package per line: the name, then what it is for.  CLANG_MAJOR stands
# for the major version of the clang that is (or will be) installed.
PACKAGES=$(
    cat <<'END'
build-essential               # C and C++ compilers, make: the build; the header is tested from C++
cmake                         # the build (3.25 or later)
zlib1g-dev                    # the library: gzip compression of rotated files
libcmocka-dev                 # the framework of the C tests
python3                       # the documentation test and the benchmark tool's test
pkg-config                    # the install test builds a program with pkg-config
clang                         # the fuzzer (libFuzzer) of the format engine
libclang-rt-CLANG_MAJOR-dev   # clang's libFuzzer and sanitizer runtimes, for that clang
gzip                          # tests read compressed rotated files
logrotate                     # tests rotate files as an operator would
rsyslog                       # tests send syslog messages to a real rsyslogd
valgrind                      # a test counts the instructions of a log call (callgrind)
locales                       # the format tests build de_DE, fr_FR ... locales (localedef)
END
)
readonly PACKAGES

say() { printf 'install-deps: %s\n' "$*" >&2; }

dry_run=0
case "${1:-}" in
'') ;;
--dry-run) dry_run=1 ;;
*)
    say "usage: $0 [--dry-run]"
    exit 2
    ;;
esac

installed() { # package
    [ "$(dpkg-query -W -f='${db:Status-Abbrev}' "$1" 2>/dev/null)" = "ii " ]
}

# The major version of clang: the installed one's, else the one the "clang"
# package would bring (it depends on clang-N).  Empty when neither is known
# (clang missing and apt's package lists not downloaded yet).
clang_major() {
    local depends
    if installed clang; then
        depends=$(dpkg-query -W -f='${Depends}' clang)
    else
        depends=$(apt-cache depends clang 2>/dev/null || true)
    fi
    sed -nE 's/.*clang-([0-9]+).*/\1/p' <<<"$depends" | head -n 1
}

# True when apt's package lists have been downloaded (apt-get update).
have_lists() {
    # shellcheck disable=SC2016 # apt's own $(FILENAME), not the shell's
    [ -n "$(apt-get indextargets --format '$(FILENAME)' 2>/dev/null)" ]
}

# Prints the missing packages, one per line.
missing_packages() {
    local name major
    major=$(clang_major)
    for name in $(sed -e 's/#.*//' <<<"$PACKAGES"); do
        if [[ $name == *CLANG_MAJOR* ]]; then
            # clang's version is not known yet: asked for once clang is installed.
            [ -n "$major" ] || continue
            name=${name//CLANG_MAJOR/$major}
            # A release without this package has the runtime in clang's own
            # packages; without package lists there is no telling yet.
            if ! installed "$name" && have_lists && ! apt-cache show "$name" >/dev/null 2>&1; then
                continue
            fi
        fi
        installed "$name" || echo "$name"
    done
}

if ! command -v dpkg-query >/dev/null || ! command -v apt-get >/dev/null; then
    say "not a Debian or Ubuntu system: make sure the equivalents of these are installed:"
    sed -e '/^[[:space:]]*$/d' <<<"$PACKAGES" >&2
    exit 0
fi

missing=$(missing_packages)
if [ -z "$missing" ]; then
    say "every package the build and the tests need is installed"
    exit 0
fi
# shellcheck disable=SC2086 # one word per package
set -- $missing
say "missing: $*"

if [ "$(id -u)" -eq 0 ]; then
    as_root=()
elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
    as_root=(sudo -n)
else
    as_root=(sudo)
    if [ "$dry_run" -eq 0 ]; then
        say "cannot install them: not root, and sudo is missing or asks for a password"
        dry_run=1
    fi
fi
if [ "$dry_run" -eq 1 ]; then
    root=${as_root[0]:+sudo }
    say "to install them, run:"
    printf '    %sapt-get update && %sapt-get install -y --no-install-recommends %s\n' \
        "$root" "$root" "$*" >&2
    exit 1
fi

apt() {
    "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -q -y "$@" </dev/null
}
apt update
# Twice: the package lists can change what is missing (clang's runtime), and
# so can installing clang.
for _ in 1 2; do
    missing=$(missing_packages)
    [ -n "$missing" ] || break
    # shellcheck disable=SC2086 # one word per package
    apt install --no-install-recommends $missing
done
missing=$(missing_packages)
if [ -n "$missing" ]; then
    say "still missing after apt-get install: $missing"
    exit 1
fi
say "installed what was missing"
