#!/bin/sh
# Checks that every file of lib/ uses only its own folder and the layers
# below it (lib/LAYERS), from two sources of truth: the symbols each object
# takes from another (nm) and the headers each source includes.
#
#   check_layers.sh LAYERS LIBDIR OBJECTS_DIR   (the objects below it)
#   check_layers.sh LAYERS LIBDIR OBJECT...
#
# Prints the layers with what each uses, then every arrow that points up or
# across; exits 1 if there is one, 2 if it could not check.
set -eu
layers=$1 libdir=$2
shift 2
if [ $# -eq 1 ] && [ -d "$1" ]; then
    set -- $(find "$1" -name '*.o' | sort)
fi
[ $# -gt 0 ] || { echo "check_layers: no objects" >&2; exit 2; }
command -v nm >/dev/null || { echo "check_layers: nm (binutils) is missing" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# folder of an object or source: the path below lib/ up to its first '/',
# or the file itself at the top (xlog.c).
for o in "$@"; do
    case $o in */xlog_objects.dir/*) rel=${o#*/xlog_objects.dir/} ;; *) rel=$o ;; esac
    rel=${rel%.o}
    nm "$o" | awk -v f="$rel" 'NF == 3 && $2 ~ /^[TDBRCVW]$/ { print "def", f, $3 }
                               NF == 2 && $1 == "U" { print "use", f, $2 }'
done >"$work/symbols"

(cd "$libdir" && find . -name '*.[ch]' | sed 's#^\./##' | sort | while read -r src; do
    sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$src" |
        while read -r inc; do echo "inc $src $inc"; done
done) >"$work/includes"

awk -v layers="$layers" '
function folder(path) { return index(path, "/") ? substr(path, 1, index(path, "/") - 1) : path }
BEGIN {
    n = 0
    while ((getline line < layers) > 0) {
        sub(/#.*/, "", line)
        if (split(line, names, /[ \t]+/) == 0) continue
        n++
        for (i in names) if (names[i] != "") { level[names[i]] = n; order[n] = order[n] " " names[i] }
    }
    if (n == 0) { print "check_layers: no layers in " layers; exit 2 }
}
$1 == "def" { defined_in[$3] = $2; next }
$1 == "use" { uses[++u] = $2 SUBSEP $3; next }
$1 == "inc" {
    # a header of lib/ (by its path), not the public one or a system header
    if ($3 !~ /\//) next
    arrow($2, $3, "includes " $3)
}
function arrow(from, to, what,   a, b, key) {
    a = folder(from); b = folder(to)
    if (!(a in level)) { bad[++nbad] = from ": its folder " a " is not in the layers"; return }
    if (!(b in level)) { bad[++nbad] = from " " what ": folder " b " is not in the layers"; return }
    if (a == b) return
    key = a SUBSEP b
    seen[key] = 1
    if (level[b] >= level[a])
        bad[++nbad] = from " " what ": " b (level[b] == level[a] ? " is apart from " : " is above ") a
}
END {
    if (n == 0) exit 2
    for (i = 1; i <= u; i++) {
        split(uses[i], p, SUBSEP)
        if (p[2] in defined_in && defined_in[p[2]] != p[1])
            arrow(p[1], defined_in[p[2]], "uses " p[2] " (" defined_in[p[2]] ")")
    }
    for (l = n; l >= 1; l--) {
        split(substr(order[l], 2), names, " ")
        for (i in names) {
            line = sprintf("%2d %-9s uses", l, names[i])
            used = 0
            for (k = l; k >= 1; k--) {     # what it uses, highest layer first
                split(substr(order[k], 2), below, " ")
                for (j in below)
                    if ((names[i] SUBSEP below[j]) in seen) { line = line " " below[j]; used++ }
            }
            if (!used) line = line " nothing of xlog"
            print line
        }
    }
    for (i = 1; i <= nbad; i++) print "UP: " bad[i]
    printf "%d upward or sideways arrows\n", nbad
    exit nbad ? 1 : 0
}' "$work/symbols" "$work/includes"
