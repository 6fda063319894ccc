"""Binary files for measuring xlog-cat (docs/BENCHMARKS.md): N records of the
3-argument statement "Logging int: %lu, int: %lu, double: %f" (i, 2i, i/2.0),
one a microsecond, in blocks of 4096 records, written by xlogbin.py.

    make_bench_files.py RECORDS FILES OUT_PREFIX

writes OUT_PREFIX-1.xlog (all the records, one thread) and OUT_PREFIX-of-FILES-
K.xlog for K in 1..FILES (the same records dealt round-robin to FILES threads,
one file each, as per-thread files are: the merge puts them back in order)."""

import struct
import sys

import xlogbin as x

FORMAT = b"Logging int: %lu, int: %lu, double: %f"
BASE = 1795358725 * 10**9  # 2026-11-22 14:45:25 UTC
PER_BLOCK = 4096


def record(i, delta):
    return (b"\x80\x00" + x.varint(delta) + x.svarint(i) + x.svarint(2 * i) +
            struct.pack("<d", i / 2.0))


def write(path, numbers, writer):
    with open(path, "wb") as f:
        for start in range(0, len(numbers), PER_BLOCK):
            chunk = numbers[start:start + PER_BLOCK]
            b = x.Block(writer=writer, base_ns=BASE + chunk[0] * 1000, pid=4321)
            b.site(0, x.INFO, 42, FORMAT, kinds=[x.LONG, x.LONG, x.DOUBLE]).thread(1000 + writer)
            prev = chunk[0]
            body = []
            for i in chunk:
                body.append(record(i, (i - prev) * 1000))
                prev = i
            b.raw(b"".join(body))
            f.write(b.bytes())


def main():
    n, files, prefix = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    write("%s-1.xlog" % prefix, list(range(n)), 1)
    for k in range(files):
        write("%s-of-%d-%d.xlog" % (prefix, files, k + 1), list(range(k, n, files)), k + 1)


if __name__ == "__main__":
    main()
