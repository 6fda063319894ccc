"""The real writer (the library, XLOG_LAYOUT_BINARY) against the real reader
(xlog-cat): whole lines, counts, exit statuses.

    test_e2e.py XLOG_CAT E2E_WRITER WORK_DIR SCENARIO

SCENARIO: differential, shared_processes, kill_recovered, follow_rotations
(see each function).  XLOG_TEST_SCALE scales the repetitions and line counts.
"""

import glob
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from follow import Follower  # noqa: E402

CAT, WRITER, WORK, SCENARIO = sys.argv[1:5]
SKIPPED = 77  # CTest's SKIP_RETURN_CODE for these tests
SCALE = float(os.environ.get("XLOG_TEST_SCALE") or 1)


def scaled(n, least=1):
    return max(least, int(n * SCALE))


def fresh(name):
    d = os.path.join(WORK, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(os.path.join(d, "logs"))
    return os.path.join(d, "logs"), os.path.join(d, "shm")


def run(args, **kw):
    p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=240, **kw)
    if p.returncode != 0 or p.stderr:  # a sanitizer's report, too
        raise AssertionError("%s: exit %d\nstderr: %s" % (" ".join(args), p.returncode,
                                                         p.stderr.decode(errors="replace")))
    return p.stdout


def cat(*args):
    """xlog-cat's output; its stderr must be empty and its status 0."""
    p = subprocess.run([CAT, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=240)
    if p.returncode != 0 or p.stderr:
        raise AssertionError("xlog-cat %s: exit %d, stderr %r" % (" ".join(args), p.returncode,
                                                                  p.stderr))
    return p.stdout


def xlog_files(logs):
    return sorted(glob.glob(os.path.join(logs, "*.xlog")) +
                  glob.glob(os.path.join(logs, "*.xlog.gz")))


def expect_same(got, want, what):
    if got == want:
        return
    g, w = got.split(b"\n"), want.split(b"\n")
    for i, (a, b) in enumerate(zip(g, w)):
        if a != b:
            raise AssertionError("%s: line %d differs:\n got: %r\nwant: %r" % (what, i + 1, a, b))
    raise AssertionError("%s: %d lines, want %d" % (what, len(g), len(w)))


# ---- 1. differential -------------------------------------------------------------


def differential():
    """xlog-cat of the binary files equals, byte for byte, what the text layout
    (default line, then a pattern) and the JSON layout gave custom sinks of the
    same process for the same events."""
    for name, pattern in (("default", None),
                          ("pattern", "{time:iso,us} {level} <{file}|{path}:{line}> "
                                      "{function} {module} p{pid} t{tid} {thread} {{{message}}}")):
        logs, shm = fresh("differential-" + name)
        text = os.path.join(logs, "..", "text.out")
        js = os.path.join(logs, "..", "json.out")
        run([WRITER, "diff", logs, shm, text, js] + ([pattern] if pattern else []))
        files = xlog_files(logs)
        if len(files) != 1:
            raise AssertionError("one .xlog file, not %r" % files)
        want_text = open(text, "rb").read()
        if want_text.count(b"\n") < 100:
            raise AssertionError("the text sink has only %d lines" % want_text.count(b"\n"))
        got = cat(*files) if pattern is None else cat("--pattern", pattern, *files)
        expect_same(got, want_text, "xlog-cat (%s) against the text sink" % name)
        expect_same(cat("--json", *files), open(js, "rb").read(),
                    "xlog-cat --json against the JSON sink")


# ---- 2. shared file, 4 processes x 2 threads, rotation and gzip ------------------

LINE = re.compile(rb"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{9}) \[INFO\] e2e_writer\.c:\d+ "
                  rb"shared_thread \d+ id (\d+)\.(\d)\.(\d+) padding(-padding){7}$")


def shared_processes():
    shared_file("shared")
    shared_file("per-process")


def shared_file(mode):
    """4 processes x 2 threads, mode "shared" (one file) or "per-process":
    every line once across the rotated and gzip'd files, and the whole
    output in time order: in a shared file too, where the blocks of the
    processes follow each other in the order of their write(2)s."""
    lines = scaled(20000, 200)
    for rep in range(max(1, scaled(2))):
        logs, shm = fresh("%s-%d" % (mode, rep))
        procs = [subprocess.Popen([WRITER, mode, logs, shm, str(p), str(lines)],
                                  stderr=subprocess.PIPE) for p in range(4)]
        for p in procs:
            _, err = p.communicate(timeout=240)
            if p.returncode != 0 or err:
                raise AssertionError("writer exit %d: %r" % (p.returncode, err))
        files = xlog_files(logs)
        if not any(f.endswith(".gz") for f in files) or len(files) < 3:
            raise AssertionError("rotated and gzip'd files, not %r" % files)
        out = cat(*files).split(b"\n")
        if out[-1] != b"":
            raise AssertionError("output does not end with a newline")
        seen, all_times = set(), []
        for line in out[:-1]:
            m = LINE.match(line)
            if not m:
                raise AssertionError("an unexpected line: %r" % line)
            key = (int(m.group(2)), int(m.group(3)), int(m.group(4)))
            if key in seen:
                raise AssertionError("line %r twice" % (key,))
            seen.add(key)
            if all_times and m.group(1) < all_times[-1]:
                raise AssertionError("line %d goes back in time: %s after %s" % (
                    len(all_times) + 1, m.group(1), all_times[-1]))
            all_times.append(m.group(1))
        want = {(p, t, i) for p in range(4) for t in range(2) for i in range(lines)}
        if seen != want:
            raise AssertionError("%d lines missing, %d unexpected" % (len(want - seen),
                                                                    len(seen - want)))
        # Each file read alone is in time order too.
        for f in files:
            times = [LINE.match(line).group(1) for line in cat(f).split(b"\n")[:-1]]
            if times != sorted(times):
                raise AssertionError("%s is not in time order" % f)


# ---- 3. kill -9, recovered, decoded ----------------------------------------------

KLINE = re.compile(rb"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{9} \[INFO\] e2e_writer\.c:\d+ "
                   rb"kill_thread \d+ k (\d)\.(\d+)$")
NOTICE = re.compile(rb"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{9} \[WARN\] \S+ \S+ \d+ "
                    rb"(\d+) lines? of process (\d+) follows?, recovered by process (\d+): "
                    rb"it ended without xlog_close$")


def kill_recovered():
    """After kill -9 at a random moment and xlog_recover, xlog-cat shows every
    line whose call returned exactly once (and the one in flight at most
    once), and the recovery notice."""
    rng = random.Random(int(os.environ.get("XLOG_E2E_SEED") or time.time_ns()))
    reps = scaled(12, 3)
    for rep in range(reps):
        logs, shm = fresh("kill-%d" % rep)
        # the calls that returned go to a file, which never makes them wait
        # (a pipe would fill and stop the threads before the kill)
        done_path = os.path.join(logs, "..", "returned")
        with open(done_path, "ab") as done:
            child = subprocess.Popen([WRITER, "kill", logs, shm], stdout=done,
                                     stderr=subprocess.PIPE)
        delay = rng.uniform(0.05, 0.6)
        time.sleep(delay)
        child.send_signal(signal.SIGKILL)
        _, err = child.communicate(timeout=60)
        done_text = open(done_path, "rb").read()
        if err:
            raise AssertionError("rep %d: the writer said %r" % (rep, err))
        returned = {0: -1, 1: -1}
        for row in done_text.decode().splitlines():
            t, i = row.split()
            returned[int(t)] = max(returned[int(t)], int(i))
        recovered = int(run([WRITER, "recover", logs, shm]).decode())
        print("rep %d: killed after %.3f s, calls returned %d + %d, %d lines recovered" % (
            rep, delay, returned[0] + 1, returned[1] + 1, recovered))
        out = cat(*xlog_files(logs)).split(b"\n")
        counts, notices = {}, 0
        for line in out[:-1]:
            m = KLINE.match(line)
            if m:
                key = (int(m.group(1)), int(m.group(2)))
                counts[key] = counts.get(key, 0) + 1
                continue
            n = NOTICE.match(line)
            if n and int(n.group(1)) == recovered and int(n.group(2)) == child.pid:
                notices += 1
                continue
            raise AssertionError("rep %d (kill after %.3f s): an unexpected line %r" % (
                rep, delay, line))
        if recovered > 0 and notices != 1:
            raise AssertionError("rep %d: %d recovery notices for %d lines" % (rep, notices,
                                                                                recovered))
        for t in (0, 1):
            for i in range(returned[t] + 1):
                if counts.get((t, i), 0) != 1:
                    raise AssertionError("rep %d (kill after %.3f s): line k %d.%d, whose call "
                                         "returned, appears %d times" % (
                                             rep, delay, t, i, counts.get((t, i), 0)))
        for (t, i), n in counts.items():
            if i > returned[t] + 1 or n != 1:
                raise AssertionError("rep %d: line k %d.%d appears %d times (calls returned: "
                                     "%d)" % (rep, t, i, n, returned[t]))


# ---- 4. xlog-cat -f across two rotations the library makes -----------------------


def follow_rotations():
    """xlog-cat -f on the live name reads every line once, in order, while the
    library rotates the file by size at least twice: first a batch at a time,
    the follower shown each before the next, then the rest in a burst, the
    name rotated several times between two of the follower's looks."""
    logs, shm = fresh("follow")
    lines = 3000  # ~100 bytes a line: 300 KB, 64 KiB files: 4 rotations
    writer = subprocess.Popen([WRITER, "follow", logs, shm, str(lines)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if writer.stdout.readline() != b"ready\n":
        raise AssertionError("the writer did not start: %r" % writer.stderr.read())
    live = xlog_files(logs)
    if len(live) != 1:
        raise AssertionError("one file, not %r" % live)
    follower = Follower(CAT, live[0])
    try:
        written = 0
        while written < lines:
            writer.stdin.write(b"go\n")
            writer.stdin.flush()
            if writer.stdout.readline() != b"done\n":
                raise AssertionError("writer: %r" % writer.stderr.read())
            written = min(lines, written + 400)
            if written < lines // 3:  # then a burst: several rotations between two looks
                follower.read_until(1 + written)
        writer.stdin.close()
        if writer.wait(timeout=240) != 0:
            raise AssertionError("writer: %r" % writer.stderr.read())
        err = writer.stderr.read()
        if err:
            raise AssertionError("writer said %r" % err)
        rotated = [f for f in xlog_files(logs) if re.search(r"\.\d+\.xlog$", f)]
        if len(rotated) < 2:
            raise AssertionError("two rotations or more, not %r" % xlog_files(logs))
        follower.read_until(1 + lines)
        time.sleep(0.3)  # anything more would be a line twice
        got = follower.read_rest()
    finally:
        err = follower.stop()
    if err:
        raise AssertionError("xlog-cat -f said %r" % err)
    messages = [re.sub(rb"^.* run_follow \d+ ", b"", line) for line in got.split(b"\n")[:-1]]
    want = [b"f start"] + [b"f %d padding-padding-padding-padding-padding-padding-padding" % i
                           for i in range(lines)]
    if messages != want:
        raise AssertionError("followed %d lines, want %d; first difference at %r" % (
            len(messages), len(want),
            next(((a, b) for a, b in zip(messages, want) if a != b), None)))
    # and the same lines as xlog-cat of all the files, once.  Oldest file
    # first: lines of equal time (common: 145 of 3,001 in one run) come in the
    # order of the command line, and a rotation may fall between two of them
    # (the glob's order, .1 before .2 before the live file, put the newer
    # file's line first: see the notes).
    def age(f):
        m = re.search(r"\.(\d+)\.xlog$", f)
        return -int(m.group(1)) if m else 0

    expect_same(got, cat(*sorted(xlog_files(logs), key=age)),
                "xlog-cat -f against xlog-cat of every file, the oldest first")


# ---- 5. attacks: threads coming and going with reopen racing rotation; fork --------

MESSAGE = re.compile(rb"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{9} \[INFO\] e2e_writer\.c:\d+ "
                     rb"\w+ \d+ ([cp]) (\d+)\.(\d+)(?: padding(?:-padding){5})?$")


def messages_once(logs):
    """The (kind, who, n) of every line of xlog-cat of every file, each once."""
    seen = set()
    for line in cat(*xlog_files(logs)).split(b"\n")[:-1]:
        m = MESSAGE.match(line)
        if not m:
            raise AssertionError("an unexpected line %r" % line)
        key = (m.group(1).decode(), int(m.group(2)), int(m.group(3)))
        if key in seen:
            raise AssertionError("line %r twice" % (key,))
        seen.add(key)
    return seen


def expect_set(seen, want):
    if seen != want:
        raise AssertionError("%d lines missing (e.g. %r), %d unexpected (e.g. %r)" % (
            len(want - seen), sorted(want - seen)[:3], len(seen - want), sorted(seen - want)[:3]))


def churn_reopen_rotation():
    """Per-thread files: waves of threads that log past rotate_size and end,
    while xlog_reopen is called every 0.5 ms: every line once."""
    waves = scaled(6, 1)
    logs, shm = fresh("churn")
    run([WRITER, "churn", logs, shm, str(waves)])
    if not any(re.search(r"\.1\.xlog$", f) for f in xlog_files(logs)):
        raise AssertionError("no rotated file: %r" % xlog_files(logs))
    expect_set(messages_once(logs),
               {("c", t, i) for t in range(waves * 8) for i in range(1500)})


def fork_while_logging():
    """Children forked while 2 threads log into a binary file: every line of
    the parent and of each child once."""
    children = scaled(30, 3)
    logs, shm = fresh("fork")
    p = subprocess.run([WRITER, "fork", logs, shm, str(children)], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=240)
    if p.returncode == SKIPPED:
        print(p.stdout.decode(), end="")
        sys.exit(SKIPPED)
    if p.returncode != 0 or p.stderr:
        raise AssertionError("writer: exit %d, stderr %r" % (p.returncode, p.stderr))
    expect_set(messages_once(logs),
               {("p", t, i) for t in range(2) for i in range(20000)} |
               {("c", k, i) for k in range(children) for i in range(100)})


CUT = re.compile(r"^xlog-cat: \S+: byte \d+: the block at byte \d+ is cut(?:: the file ends \d+ "
                 r"bytes? before its end| at byte \d+, where another block begins) "
                 r"\(its whole entries were read\)$")
LOST = re.compile(rb"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{9} \[WARN\] xlog:0 xlog \d+ "
                  rb"(?:(\d+) lines? \(\d+ bytes?\) (?:was|were) lost: writing failed: File too large|"
                  rb"the lines still in memory will not survive a kill of this process: its "
                  rb"persistent directory cannot be used: File too large)$")


def file_size_limit_in_a_shared_file():
    """Two processes share a binary file; one runs under a file-size limit
    (RLIMIT_FSIZE), so its writes are cut short at the limit: xlog-cat reports
    each cut block (exit 1) and still shows every line of the other process
    once, and of the limited one nothing twice, and no line both shown and
    counted lost by a notice (a cut block's lines before the cut were)."""
    import resource
    lines = scaled(3000, 300)
    logs, shm = fresh("fsize")
    limit = 40000  # below rotate_size (64 KiB): the live file hits it

    def limited():
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    procs = [subprocess.Popen([WRITER, "shared", logs, shm, "0", str(lines)],
                              stderr=subprocess.PIPE, preexec_fn=limited),
             subprocess.Popen([WRITER, "shared", logs, shm, "1", str(lines)],
                              stderr=subprocess.PIPE)]
    for p in procs:
        _, err = p.communicate(timeout=240)
        if p.returncode != 0 or err:
            raise AssertionError("writer exit %d: %r" % (p.returncode, err))
    r = subprocess.run([CAT, *xlog_files(logs)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=240)
    reports = r.stderr.decode().splitlines()
    for report in reports:
        if not CUT.match(report):
            raise AssertionError("xlog-cat said %r" % report)
    if r.returncode != (1 if reports else 0):
        raise AssertionError("xlog-cat's exit %d after %d reports" % (r.returncode, len(reports)))
    seen = set()
    noticed = 0  # lines the limited process's loss notices say were lost
    for line in r.stdout.split(b"\n")[:-1]:
        m = LINE.match(line)
        if not m:
            lost = LOST.match(line)
            if lost:
                noticed += int(lost.group(1) or 0)
                continue
            raise AssertionError("an unexpected line %r" % line)
        key = (int(m.group(2)), int(m.group(3)), int(m.group(4)))
        if key in seen:
            raise AssertionError("line %r twice" % (key,))
        seen.add(key)
    expect_set({k for k in seen if k[0] == 1}, {(1, t, i) for t in range(2) for i in range(lines)})
    shown = len([k for k in seen if k[0] == 0])
    print("%d cut blocks reported; %d of the limited process's %d lines shown, %d said lost" % (
        len(reports), shown, 2 * lines, noticed))
    # A line is shown or counted lost, never both (the lines lost last are
    # in no notice: the process ended before it could write one).
    if shown + noticed > 2 * lines:
        raise AssertionError("%d lines shown and %d said lost, of %d logged" % (
            shown, noticed, 2 * lines))


SCENARIOS = {f.__name__: f for f in (differential, shared_processes, kill_recovered,
                                     follow_rotations, churn_reopen_rotation,
                                     fork_while_logging, file_size_limit_in_a_shared_file)}

if __name__ == "__main__":
    os.makedirs(WORK, exist_ok=True)
    SCENARIOS[SCENARIO]()
    print("%s: ok" % SCENARIO)
