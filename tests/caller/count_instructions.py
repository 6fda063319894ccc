#!/usr/bin/env python3
"""Counts, with callgrind, the instructions a log statement costs the thread
that makes it, and fails when a checked one costs more than its target
(issue 18).  It counts; it does not time, so its figures do not depend on
the machine's load.

    count_instructions.py [--target CASE=LIMIT]... [--checked LABEL=PROGRAM]...
                          [--reported LABEL=PROGRAM]... [--config CONFIG]

Each PROGRAM is tests/caller/statements.h built one way (C11, C++17, C99;
the shared or the static library).  For each of its cases (run_<case>, a
loop over one statement) it is run under

    valgrind --tool=callgrind --separate-threads=yes --toggle-collect=run_<case>

for N = 100,000 and 200,000 iterations: the main thread's count with
collection on inside run_<case> is everything the loop runs, the library's
code it calls included, and nothing of the back end's thread.  An
iteration costs (I(200,000) - I(100,000)) / 100,000, which leaves out
what the program does once (xlog_open, xlog_close); a call costs that less
the iteration of run_loop_only, the same loop around an empty asm.  The
rows of --checked programs fail when a call, to the nearest whole
instruction, costs more than their case's target; those of --reported ones
(C99, which keeps the general path by design) are printed only.  (A count
varies by a few hundredths of an instruction per call from run to run: the
caller's path depends a little on what the back end's thread has done, and
the two threads' interleaving under valgrind follows the back end's timed
waits, which real time decides.  The targets are whole instructions.)

Exit status 0 when every checked row is within its target, 1 otherwise or
when a count could not be made, 77 (CTest's SKIP_RETURN_CODE) when valgrind
is not installed (scripts/install-deps.sh installs it) or the build is not
optimized (the targets are for the code users run: CONFIG RelWithDebInfo
or Release).
"""
import argparse
import concurrent.futures
import os
import shutil
import subprocess
import sys
import tempfile

SMALL_N = 100_000
LARGE_N = 200_000
LOOP_CASE = "loop_only"
STATEMENTS = {
    "3args": 'xlog_info("Logging int: %lu, int: %lu, double: %f", i, 2 * i, i / 2.0)',
    "3args_ctx": '<the 3args statement> while the thread has a context of two pairs',
    "no_arg": 'xlog_info("Logging nothing")',
    "2strings": 'xlog_info("user %s logged in from %s", (i & 1) ? "alice" : "bob.smith.long", "10.0.0.1")',
    "disabled": 'xlog_debug(<the 3args statement>) under the INFO threshold',
}
OPTIMIZED_CONFIGS = ("RelWithDebInfo", "Release")


def label_and_path(text):
    label, sep, path = text.partition("=")
    if not sep or not label or not path:
        raise argparse.ArgumentTypeError(f"expected LABEL=PROGRAM, got {text!r}")
    return label, path


def case_and_limit(text):
    case, sep, limit = text.partition("=")
    if not sep or case not in STATEMENTS or not limit.isdigit():
        raise argparse.ArgumentTypeError(
            f"expected CASE=LIMIT with CASE one of {', '.join(STATEMENTS)}, got {text!r}")
    return case, int(limit)


class CountError(Exception):
    pass


def count(valgrind, program, case, n, work):
    """Instructions of the main thread inside run_<case> for n iterations."""
    run_dir = tempfile.mkdtemp(prefix=f"{case}-{n}-", dir=work)
    out = os.path.join(run_dir, "callgrind.out")
    command = [valgrind, "--tool=callgrind", "--separate-threads=yes",
               f"--toggle-collect=run_{case}", f"--callgrind-out-file={out}",
               program, run_dir, case, str(n)]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        raise CountError(f"{' '.join(command)} exited with {result.returncode}:\n"
                         f"{result.stdout}{result.stderr}")
    # Thread 1, the program's first, is the one that runs the loop.
    totals = None
    with open(out + "-01") as f:
        for line in f:
            if line.startswith("totals:"):
                totals = int(line.split()[1])
    shutil.rmtree(run_dir)
    if not totals:
        raise CountError(f"callgrind counted nothing in run_{case} of {program}: "
                         "is the function there under that name?")
    return totals


def extra_instructions(valgrind, program, case, work):
    """I(LARGE_N) - I(SMALL_N) of run_<case>: what its extra iterations cost."""
    small = count(valgrind, program, case, SMALL_N, work)
    large = count(valgrind, program, case, LARGE_N, work)
    return large - small


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--target", type=case_and_limit, action="append", default=[])
    parser.add_argument("--checked", type=label_and_path, action="append", default=[])
    parser.add_argument("--reported", type=label_and_path, action="append", default=[])
    parser.add_argument("--config", default="")
    args = parser.parse_args()
    targets = dict(args.target)
    missing = [case for case in STATEMENTS if case not in targets]
    if missing:
        parser.error(f"no --target for {', '.join(missing)}")

    valgrind = shutil.which("valgrind")
    if not valgrind:
        print("valgrind is not installed (scripts/install-deps.sh installs it): "
              "the callers' instructions were not counted")
        return 77
    if args.config not in OPTIMIZED_CONFIGS:
        print(f"build type {args.config or '(none)'}: the targets are for an optimized build "
              f"({' or '.join(OPTIMIZED_CONFIGS)}); the callers' instructions were not counted")
        return 77

    programs = [(label, path, True) for label, path in args.checked]
    programs += [(label, path, False) for label, path in args.reported]
    cases = [LOOP_CASE] + list(STATEMENTS)
    # callgrind runs one thread at a time: one run per core.
    workers = len(os.sched_getaffinity(0))
    with tempfile.TemporaryDirectory(prefix="xlog-caller-") as work, \
            concurrent.futures.ThreadPoolExecutor(max_workers=workers) as pool:
        jobs = {(path, case): pool.submit(extra_instructions, valgrind, path, case, work)
                for _, path, _ in programs for case in cases}
        try:
            extra = {key: job.result() for key, job in jobs.items()}
        except CountError as e:
            print(f"FAIL: {e}")
            return 1

    added = LARGE_N - SMALL_N
    print(f"Instructions on the calling thread per call: callgrind, "
          f"(I({LARGE_N:,}) - I({SMALL_N:,})) / {added:,}, less the loop's own; "
          f"the target holds for the call to the nearest whole instruction")
    for case, statement in STATEMENTS.items():
        print(f"  {case:9} {statement}")
    print()
    header = f"{'case':9} {'language, library':34} {'iteration':>9} {'loop':>6} {'call':>7} {'target':>6}  result"
    print(header)
    print("-" * len(header))
    failed = 0
    for label, path, checked in programs:
        loop = extra[(path, LOOP_CASE)]
        for case in STATEMENTS:
            call = extra[(path, case)] - loop
            if not checked:
                result = "reported"
            elif (2 * call + added) // (2 * added) <= targets[case]:
                result = "pass"
            else:
                result = "FAIL"
                failed += 1
            print(f"{case:9} {label:34} {extra[(path, case)] / added:9.2f} {loop / added:6.2f} "
                  f"{call / added:7.2f} {targets[case]:6}  {result}")
    print()
    if failed:
        print(f"FAIL: {failed} checked {'row is' if failed == 1 else 'rows are'} above the target")
        return 1
    print("every checked row is within its target")
    return 0


if __name__ == "__main__":
    sys.exit(main())
