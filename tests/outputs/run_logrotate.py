#!/usr/bin/env python3
"""The real logrotate rotates xlog's file while it is written, as an operator's
cron would, and no line is lost, repeated or cut.

    run_logrotate.py MODE WRITER WORK_DIR

MODE is the way operators configure logrotate for a program (docs/OUTPUTS.md,
"logrotate"):

  rename     logrotate renames the file (no copytruncate), with nocreate:
             xlog notices the rename by itself, before its next write(2),
             and opens the name again.
  postrotate the same, and a postrotate script sends SIGHUP to the program,
             whose handler calls xlog_reopen().

WRITER is tests/outputs/logrotate_writer: 4 threads log numbered lines at a
steady pace into WORK_DIR/logs until its standard input is closed.
Meanwhile `logrotate -s WORK_DIR/state -f WORK_DIR/logrotate.conf` runs
ROTATIONS times, each time once the live file holds lines again (so each
rotation moves lines, and no waiting is measured).  The config is that of
docs/OUTPUTS.md: rotate 100, compress, delaycompress, missingok,
notifempty, nocreate.  Then every file left (plain and .gz) is read, oldest
to newest: each line is whole and of the expected text, each thread's lines
are 0, 1, 2 ... up to the count the writer reports, each exactly once and in
order; the writer reports nothing lost, dropped or failed.

Exit status 0 on success, 1 on failure, 77 (CTest's SKIP_RETURN_CODE) when
logrotate is not installed (scripts/install-deps.sh installs it).
"""
import gzip
import os
import re
import shutil
import stat
import subprocess
import sys
import time

THREADS = 4
PACE_US = 2000          # the writer sleeps this long after every 100 lines
ROTATIONS = 8
FILLER = "abcdefghijklmnopqrstuvwxyz0123456789"

# The default layout: time, level, file:line, function, thread id, message.
LINE = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{9} \[INFO\] \S+:\d+ log_lines \d+ "
                  r"t(\d+) seq (\d+) " + FILLER)
# The names of XLOG_FILE_SHARED and those logrotate gives them: the live file,
# then .1 (delaycompress keeps it plain), .2.gz, .3.gz ...
NAME = re.compile(r"(\d{4}-\d\d-\d\d)\.log(?:\.(\d+))?(\.gz)?")

CONFIG = """\
{logs}/*.log {{
    rotate 100
    compress
    delaycompress
    missingok
    notifempty
    nocreate
{scripts}}}
"""
POSTROTATE = """\
    sharedscripts
    postrotate
        kill -HUP "$(cat {pidfile})"
    endscript
"""

failures = []


def check(condition, what):
    if not condition:
        failures.append(what)
        print("FAIL: " + what, flush=True)
    return condition


def find_logrotate():
    for candidate in ("/usr/sbin/logrotate", shutil.which("logrotate")):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


def live_has_lines(logs):
    """True when a live file (a name without a number) holds bytes."""
    for name in os.listdir(logs):
        m = NAME.fullmatch(name)
        if m and m.group(2) is None and m.group(3) is None:
            if os.path.getsize(os.path.join(logs, name)) > 0:
                return True
    return False


def wait_for_lines(logs, writer):
    """Waits until xlog has written into a live file again (after a rotation,
    it has noticed and opened the name anew).  Polls; asserts nothing about
    how long it takes.  False if the writer ended meanwhile."""
    while not live_has_lines(logs):
        if writer.poll() is not None:
            return False
        time.sleep(0.02)
    return True


def rotated_order(names):
    """File names oldest first: by date, then .N from the highest to .1, then
    the live file."""
    def key(name):
        m = NAME.fullmatch(name)
        number = int(m.group(2)) if m.group(2) else 0
        return (m.group(1), -number)
    return sorted(names, key=key)


def read_log(path):
    if path.endswith(".gz"):
        # gzip as an operator's zcat reads it; a truncated or corrupt file
        # raises here.
        with gzip.open(path, "rb") as f:
            return f.read()
    with open(path, "rb") as f:
        return f.read()


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in ("rename", "postrotate"):
        print(__doc__)
        return 2
    mode, writer_program, work = sys.argv[1], sys.argv[2], sys.argv[3]
    logrotate = find_logrotate()
    if logrotate is None:
        print("SKIP: logrotate is not installed (/usr/sbin/logrotate); "
              "scripts/install-deps.sh installs it")
        return 77

    shutil.rmtree(work, ignore_errors=True)
    logs = os.path.join(work, "logs")
    os.makedirs(logs)
    # logrotate refuses a log directory that group or others can write.
    os.chmod(work, 0o755)
    os.chmod(logs, 0o755)
    state = os.path.join(work, "logrotate.state")
    conf = os.path.join(work, "logrotate.conf")
    pidfile = os.path.join(work, "writer.pid")
    scripts = POSTROTATE.format(pidfile=pidfile) if mode == "postrotate" else ""
    with open(conf, "w") as f:
        f.write(CONFIG.format(logs=logs, scripts=scripts))
    os.chmod(conf, 0o644)
    print("logrotate config (%s):\n%s" % (conf, open(conf).read()), flush=True)

    env = dict(os.environ)
    env.pop("XLOG_LEVEL", None)
    env.pop("XLOG_DIR", None)
    # The writer's shared memory (cfg.persistent_dir) is ours too: removed
    # with WORK_DIR, so a writer killed by a failed run leaves nothing that
    # the next run's xlog_open would recover into its files.
    writer = subprocess.Popen([writer_program, logs, os.path.join(work, "shm"), str(THREADS),
                               str(PACE_US)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
    try:
        ready = writer.stdout.readline()
        if not check(ready == "ready\n", "the writer starts (said %r)" % ready):
            return 1
        with open(pidfile, "w") as f:
            f.write("%d\n" % writer.pid)

        rotations = 0
        for _ in range(ROTATIONS):
            if not check(wait_for_lines(logs, writer), "the writer still runs"):
                break
            time.sleep(0.2)  # let some lines gather: more of them on each side of the rename
            done = subprocess.run([logrotate, "-s", state, "-f", conf],
                                  capture_output=True, text=True, timeout=300)
            if not check(done.returncode == 0 and done.stderr == "",
                         "logrotate exits 0 and says nothing (status %d: %s)"
                         % (done.returncode, done.stderr.strip())):
                break
            rotations += 1
        # Lines written after the last rotation too.
        check(wait_for_lines(logs, writer), "the writer still runs after the last rotation")
        writer.stdin.close()  # the writer's threads stop, it closes xlog and reports
        out = writer.stdout.read()
        writer.wait(timeout=300)
    finally:
        if writer.poll() is None:
            writer.kill()
            writer.wait()

    print("writer (status %d):\n%s" % (writer.returncode, out), flush=True)
    check(writer.returncode == 0, "the writer exits 0 (status %d)" % writer.returncode)
    report = dict(line.split() for line in out.splitlines())
    for counter in ("lost", "dropped", "write_errors"):
        check(report.get(counter) == "0", "xlog_stats: %s is 0 (%s)" % (counter, report.get(counter)))
    logged = [int(report.get("t%d" % t, -1)) for t in range(THREADS)]
    check(all(n > 0 for n in logged), "every thread logged lines: %r" % logged)

    names = os.listdir(logs)
    strangers = [n for n in names if not NAME.fullmatch(n)]
    check(not strangers, "only xlog's and logrotate's names in the directory: %r" % strangers)
    names = rotated_order([n for n in names if NAME.fullmatch(n)])
    print("files, oldest first: %s" % " ".join(names))
    dates = {NAME.fullmatch(n).group(1) for n in names}
    if len(dates) == 1:  # a real midnight (UTC) during the run adds a day's file
        rotated = [n for n in names if NAME.fullmatch(n).group(2)]
        check(len(rotated) == rotations,
              "%d rotations left %d rotated files" % (rotations, len(rotated)))
        check(any(n.endswith(".gz") for n in names) or rotations < 2,
              "logrotate compressed the older files")

    expected = [0] * THREADS
    total = 0
    for name in names:
        data = read_log(os.path.join(logs, name))
        if not check(data == b"" or data.endswith(b"\n"), "%s ends with a whole line" % name):
            continue
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as e:
            check(False, "%s is UTF-8: %s" % (name, e))
            continue
        count = 0
        for number, line in enumerate(text.splitlines(), 1):
            m = LINE.fullmatch(line)
            if not check(m is not None, "%s:%d is a whole line: %r" % (name, number, line)):
                continue
            t, seq = int(m.group(1)), int(m.group(2))
            if not check(t < THREADS, "%s:%d: thread %d exists" % (name, number, t)):
                continue
            if seq != expected[t]:
                what = "repeated" if seq < expected[t] else "missing before it"
                check(False, "%s:%d: thread %d's line %d where %d was expected (%s)"
                      % (name, number, t, seq, expected[t], what))
                if len(failures) > 50:
                    print("too many failures; stopping")
                    return 1
            expected[t] = max(expected[t], seq + 1)
            count += 1
        total += count
        print("  %-22s %8d lines" % (name, count))
    for t in range(THREADS):
        check(expected[t] == logged[t],
              "thread %d: the files hold lines 0..%d, the writer logged %d"
              % (t, expected[t] - 1, logged[t]))
    check(total == sum(logged), "%d lines in the files, %d logged" % (total, sum(logged)))
    print("%s: %d rotations by logrotate, %d files, %d lines of %d threads"
          % (mode, rotations, len(names), total, THREADS))

    if failures:
        print("%d failures; the files are kept in %s" % (len(failures), logs))
        return 1
    shutil.rmtree(work, ignore_errors=True)
    print("OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
