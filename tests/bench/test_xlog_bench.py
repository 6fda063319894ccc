#!/usr/bin/env python3
"""Tests of the xlog-bench tool itself (not of xlog's speed).

Runs a small version of the default suite once, in a temporary directory, and
checks that:
  - --json prints one JSON array that parses, one object per strategy, with
    numbers as numbers;
  - every strategy of the default suite has its row, in order, and --list
    names the default and the quick suites;
  - for every strategy that writes files, the lines in the files equal the
    messages sent, and none is malformed (as text, or as JSON objects for the
    JSON row);
  - the threads rows carry their memory and time figures, consistent with
    each other (never a threshold on them);
  - the syslog rows' collector got every message xlog did not count as
    dropped, none malformed (both transports; UDP's kernel drops counted);
  - the table output names every row, and --chart writes well-formed SVG;
  - bad options are refused with exit status 2.

Usage: test_xlog_bench.py PATH/TO/xlog-bench   (CTest passes the path)
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ElementTree

BENCH = None

DEFAULT_SUITE = [
    "timer", "open-close", "stdio-once", "stdio-once:string", "thread-files",
    "flush-each", "flock-procs", "xlog-shared", "xlog-shared:string",
    "xlog-per-thread", "xlog-off-level", "xlog-off-module", "xlog-module",
    "xlog-throughput", "xlog-json-throughput", "xlog-binary-throughput", "xlog-cat-one",
    "xlog-cat-merge", "xlog-syslog-throughput", "xlog-burst",
    "xlog-live-threads",
    "xlog-short-threads", "tty-direct", "tty-xlog",
]

# What --quick runs: the default suite without the rows of xlog's JSON
# layout and syslog sink.
QUICK_SUITE = [name for name in DEFAULT_SUITE
               if name not in ("xlog-json-throughput", "xlog-syslog-throughput")]

# The rows that time xlog-cat reading binary files: no write calls to count.
READER_ROWS = ("xlog-cat-one", "xlog-cat-merge")

# The default suite with small figures (every figure --quick changes is set).
SMALL_RUN = [
    "--messages", "5000", "--batch", "500", "--gap-us", "200",
    "--throughput-messages", "100000", "--burst-messages", "200000",
    "--stall-seconds", "1", "--live-threads", "30", "--short-threads", "50",
    "--thread-lines", "4", "--thread-pairs", "2", "--no-progress",
]

LATENCY_FIELDS = ["count", "avg", "min", "p50", "p99", "p999", "max"]


def check_syslog_row(test, row, messages):
    """What every syslog row must show, whatever the machine's speed."""
    test.assertEqual(row["kind"], "throughput")
    test.assertIs(row["available"], True, row["note"])
    test.assertEqual(row["messages_sent"], messages)
    test.assertIs(row["lines_ok"], True)
    test.assertEqual(row["syslog_malformed"], 0)
    test.assertIsInstance(row["syslog_received"], int)
    test.assertIsInstance(row["syslog_dropped"], int)
    # The row's time runs until the files and the collector are complete.
    test.assertGreater(row["files_seconds"], 0)
    test.assertLessEqual(row["files_seconds"], row["throughput_seconds"])


def run_bench(arguments, directory):
    return subprocess.run([BENCH] + arguments + ["--dir", directory],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, timeout=240)


class DefaultSuiteJson(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.directory = tempfile.TemporaryDirectory(prefix="xlog-bench-test.")
        cls.chart = os.path.join(cls.directory.name, "chart.svg")
        cls.result = run_bench(SMALL_RUN + ["--json", "--chart", cls.chart],
                               cls.directory.name)

    @classmethod
    def tearDownClass(cls):
        cls.directory.cleanup()

    def rows(self):
        self.assertEqual(self.result.returncode, 0, self.result.stderr)
        rows = json.loads(self.result.stdout)
        self.assertIsInstance(rows, list)
        return rows

    def test_json_parses_one_object_per_strategy(self):
        rows = self.rows()
        for row in rows:
            self.assertIsInstance(row, dict)
        self.assertEqual([row["name"] for row in rows], DEFAULT_SUITE)

    def test_figures_are_numbers(self):
        for row in self.rows():
            if not row["available"]:
                continue
            if row["kind"] in ("timer", "phased", "terminal"):
                latency = row["latency_ns"]
                for field in LATENCY_FIELDS:
                    self.assertIsInstance(latency[field], (int, float), (row["name"], field))
                self.assertLessEqual(latency["min"], latency["p50"], row["name"])
                self.assertLessEqual(latency["p50"], latency["p99"], row["name"])
                self.assertLessEqual(latency["p99"], latency["p999"], row["name"])
                self.assertLessEqual(latency["p999"], latency["max"], row["name"])
            if row["kind"] == "phased":
                self.assertGreater(row["timer_pair_p50_ns"], 0, row["name"])
            if row["kind"] in ("phased", "throughput"):
                self.assertIsInstance(row["messages_per_s"], (int, float), row["name"])
                self.assertGreater(row["messages_per_s"], 0, row["name"])
                if row["name"] in READER_ROWS:
                    self.assertIsNone(row["write_calls"], row["name"])
                    continue
                self.assertIsInstance(row["write_calls"], int, row["name"])
                self.assertIsInstance(row["write_calls_per_1000_messages"], (int, float),
                                      row["name"])

    def test_lines_written_equal_messages_sent(self):
        for row in self.rows():
            if row["kind"] == "timer":
                continue
            self.assertIs(row["available"], True, (row["name"], row["note"]))
            due = 0 if row["writes_nothing"] else row["messages_sent"]
            self.assertEqual(row["lines_written"], due, row["name"])
            self.assertEqual(row["lines_malformed"], 0, row["name"])
            self.assertIs(row["lines_ok"], True, row["name"])

    def test_json_lines_row(self):
        rows = {row["name"]: row for row in self.rows()}
        # Its files were checked as JSON objects, the binary rows' entries
        # decoded, every other row's as text.
        binary = ("xlog-binary-throughput",) + READER_ROWS
        for name, row in rows.items():
            expected = None if name == "timer" else \
                "json" if name == "xlog-json-throughput" else \
                "binary" if name in binary else "text"
            self.assertEqual(row["line_shape"], expected, name)
        json_row = rows["xlog-json-throughput"]
        self.assertEqual(json_row["kind"], "throughput")
        self.assertEqual(json_row["messages_sent"], 100000)
        self.assertIs(json_row["lines_ok"], True)
        # The same lines as the text row, each a longer JSON object.
        self.assertGreater(json_row["bytes_written"], rows["xlog-throughput"]["bytes_written"])

    def test_binary_rows(self):
        rows = {row["name"]: row for row in self.rows()}
        binary = rows["xlog-binary-throughput"]
        self.assertEqual(binary["kind"], "throughput")
        self.assertEqual(binary["messages_sent"], 100000)
        self.assertIs(binary["lines_ok"], True)
        # The same entries as the text row's lines, in fewer bytes.
        self.assertLess(binary["bytes_written"], rows["xlog-throughput"]["bytes_written"])
        # xlog-cat read the same number of entries, from one file and from
        # one file per thread.
        for name, workers in (("xlog-cat-one", 1), ("xlog-cat-merge", 8)):
            row = rows[name]
            self.assertEqual(row["kind"], "throughput", name)
            self.assertEqual(row["workers"], workers, name)
            self.assertEqual(row["messages_sent"], 100000, name)
            self.assertEqual(row["lines_written"], 100000, name)
            self.assertIs(row["lines_ok"], True, name)
            self.assertGreater(row["bytes_written"], 0, name)

    def test_syslog_row(self):
        row = {row["name"]: row for row in self.rows()}["xlog-syslog-throughput"]
        check_syslog_row(self, row, 100000)
        # The local socket makes the sender wait for room: nothing is lost
        # in the kernel, and it is not counted.
        self.assertIsNone(row["syslog_lost_in_kernel"])
        self.assertIs(row["syslog_balanced"], True)
        self.assertEqual(row["syslog_received"] + row["syslog_dropped"], 100000)
        # Only the syslog rows have a collector.
        for other in self.rows():
            if other["name"] != "xlog-syslog-throughput":
                self.assertIsNone(other["syslog_balanced"], other["name"])
                self.assertIsNone(other["files_seconds"], other["name"])

    def test_worker_counts(self):
        rows = {row["name"]: row for row in self.rows()}
        self.assertEqual(rows["flock-procs"]["workers"], 2)
        self.assertIs(rows["flock-procs"]["workers_are_processes"], True)
        self.assertEqual(rows["thread-files"]["workers"], 2)
        self.assertEqual(rows["stdio-once"]["workers"], 1)

    def test_first_call_is_counted_apart(self):
        rows = {row["name"]: row for row in self.rows()}
        for name in ("xlog-shared", "xlog-per-thread"):
            # Both counted where the kernel lets the audit run (Linux 5.5+).
            self.assertEqual(rows[name]["first_call_syscalls"] is None,
                             rows[name]["caller_syscalls"] is None, name)
            self.assertEqual(rows[name]["first_call_mallocs"] is None,
                             rows[name]["caller_mallocs"] is None, name)
        self.assertIsNone(rows["stdio-once"]["first_call_syscalls"])

    def test_burst_reports_peak_rss(self):
        burst = {row["name"]: row for row in self.rows()}["xlog-burst"]
        self.assertGreater(burst["peak_rss_kib"], 0)
        self.assertGreaterEqual(burst["peak_rss_kib"], burst["rss_before_kib"])

    def test_live_threads_row(self):
        row = {row["name"]: row for row in self.rows()}["xlog-live-threads"]
        # Figures, not targets: every thread's lines, RSS read while all live.
        # No order between the RSS figures: the kernel updates VmHWM from
        # approximate counters, so it can read below an earlier VmRSS.
        self.assertEqual(row["kind"], "threads")
        self.assertEqual(row["workers"], 30)
        self.assertEqual(row["lines_per_thread"], 4)
        self.assertEqual(row["messages_sent"], 30 * 4)
        for field in ("rss_before_kib", "rss_after_kib", "rss_growth_kib",
                      "rss_growth_off_kib", "peak_rss_kib"):
            self.assertIsInstance(row[field], int, field)
        self.assertEqual(row["rss_growth_kib"], row["rss_after_kib"] - row["rss_before_kib"])
        # Its persistent files in /dev/shm, mapped or not: each thread's ring
        # has only the pages of its first laps there (a few dozen KiB, not
        # ring_size), beside the process file and the file buffer.
        self.assertIsInstance(row["shm_kib"], int)
        self.assertIsInstance(row["rss_shmem_kib"], int)
        self.assertGreater(row["shm_kib"], 0)
        self.assertLess(row["shm_kib"], 30 * 64 + 1024)
        self.assertGreater(row["first_call_p50_ns"], 0)
        self.assertLessEqual(row["first_call_p50_ns"], row["first_call_ns"])
        self.assertIsNone(row["wall_seconds"])
        self.assertIsNone(row["latency_ns"])

    def test_short_threads_row(self):
        row = {row["name"]: row for row in self.rows()}["xlog-short-threads"]
        self.assertEqual(row["kind"], "threads")
        self.assertEqual(row["workers"], 50)
        self.assertEqual(row["pairs"], 2)
        self.assertEqual(row["messages_sent"], 50 * 4 * 2)
        self.assertGreater(row["wall_seconds"], 0)
        self.assertGreater(row["wall_seconds_off"], 0)
        self.assertGreater(row["wall_ratio"], 0)
        self.assertEqual(row["rss_growth_kib"], row["peak_rss_kib"] - row["rss_before_kib"])
        self.assertIsInstance(row["rss_growth_off_kib"], int)
        self.assertGreater(row["first_call_p50_ns"], 0)
        self.assertLessEqual(row["first_call_p50_ns"], row["first_call_ns"])
        self.assertIsNone(row["rss_after_kib"])

    def test_terminal_stall_is_seen(self):
        direct = {row["name"]: row for row in self.rows()}["tty-direct"]
        # The caller blocks while the reader stops for one second.
        self.assertGreater(direct["latency_ns"]["max"], 0.2e9)
        self.assertGreaterEqual(direct["latency_ns"]["max"], direct["stall_worst_ns"])
        self.assertGreater(direct["stall_worst_ns"], 0.2e9)
        self.assertEqual(direct["terminal_lines"], direct["messages_sent"])
        self.assertIsNone(direct["console_dropped"])

    def test_terminal_xlog_row(self):
        row = {row["name"]: row for row in self.rows()}["tty-xlog"]
        # Figures, not speed: every call timed, the stall's worst within all
        # calls' worst, every line shown or counted as dropped.
        self.assertEqual(row["latency_ns"]["count"], row["messages_sent"])
        self.assertGreater(row["stall_worst_ns"], 0)
        self.assertLessEqual(row["stall_worst_ns"], row["latency_ns"]["max"])
        self.assertIsInstance(row["console_dropped"], int)
        self.assertGreaterEqual(row["terminal_lines"] + row["console_dropped"],
                                row["messages_sent"])

    def test_chart_is_svg(self):
        self.rows()
        svg = ElementTree.parse(self.chart).getroot()
        self.assertTrue(svg.tag.endswith("svg"))
        bars = [e for e in svg.iter() if e.tag.endswith("rect")]
        self.assertGreater(len(bars), 4 * 10)

    def test_files_are_removed(self):
        self.rows()
        left = [name for name in os.listdir(self.directory.name) if name != "chart.svg"]
        self.assertEqual(left, [])


class SyslogRows(unittest.TestCase):
    """Both syslog rows, the UDP one not being in the default suite."""

    def test_both_transports(self):
        with tempfile.TemporaryDirectory(prefix="xlog-bench-test.") as directory:
            result = run_bench(["--strategies",
                                "xlog-syslog-throughput,xlog-syslog-udp-throughput",
                                "--throughput-messages", "20000", "--json", "--no-progress"],
                               directory)
            self.assertEqual(os.listdir(directory), [])
        self.assertEqual(result.returncode, 0, result.stderr)
        rows = {row["name"]: row for row in json.loads(result.stdout)}
        for row in rows.values():
            check_syslog_row(self, row, 20000)
        self.assertIs(rows["xlog-syslog-throughput"]["syslog_balanced"], True)
        self.assertEqual(rows["xlog-syslog-throughput"]["syslog_received"] +
                         rows["xlog-syslog-throughput"]["syslog_dropped"], 20000)
        # UDP may lose datagrams in the kernel (the collector's socket full),
        # which xlog cannot count; the collector reads how many.
        udp = rows["xlog-syslog-udp-throughput"]
        self.assertIsInstance(udp["syslog_lost_in_kernel"], int)
        self.assertEqual(udp["syslog_received"] + udp["syslog_dropped"] +
                         udp["syslog_lost_in_kernel"], 20000)
        self.assertIs(udp["syslog_balanced"], udp["syslog_lost_in_kernel"] == 0)

    def test_table(self):
        with tempfile.TemporaryDirectory(prefix="xlog-bench-test.") as directory:
            result = run_bench(["--strategies", "xlog-throughput,xlog-syslog-throughput",
                                "--throughput-messages", "20000", "--no-progress"], directory)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("| received + dropped = sent |", result.stdout)
        self.assertIn("with a syslog sink on a local socket", result.stdout)
        self.assertIn("received + dropped by xlog = sent", result.stdout)


class TableAndOptions(unittest.TestCase):
    def test_table_names_every_row(self):
        with tempfile.TemporaryDirectory(prefix="xlog-bench-test.") as directory:
            result = run_bench(["--strategies", "timer,stdio-once,xlog-shared,xlog-shared:string",
                                "--messages", "2000", "--no-progress"], directory)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("stdio file opened once", result.stdout)
        self.assertIn("xlog, shared file (string message)", result.stdout)
        # The comparison: one line for stdio-once, against the xlog row with
        # the same files and message, with a ratio in every column.
        self.assertIn("xlog against each strategy", result.stdout)
        compared = [line for line in result.stdout.splitlines()
                    if line.startswith("| stdio file opened once ") and "| xlog, shared file " in line]
        self.assertEqual(len(compared), 1, result.stdout)
        self.assertRegex(compared[0], r"(\| +[0-9.,]+x ){4}\|$")

    def test_terminal_table(self):
        with tempfile.TemporaryDirectory(prefix="xlog-bench-test.") as directory:
            result = run_bench(["--strategies", "tty-direct,tty-xlog", "--stall-seconds", "0.3",
                                "--no-progress"], directory)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("worst during stall ns", result.stdout)
        self.assertIn("console lines dropped", result.stdout)
        self.assertIn("a terminal stopped reading", result.stdout)

    def test_threads_table(self):
        with tempfile.TemporaryDirectory(prefix="xlog-bench-test.") as directory:
            result = run_bench(["--strategies", "xlog-live-threads,xlog-short-threads",
                                "--live-threads", "10", "--short-threads", "10",
                                "--thread-pairs", "1", "--no-progress"], directory)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("growth, logging off KiB", result.stdout)
        self.assertIn("xlog, live threads, all alive at the reading", result.stdout)
        self.assertIn("10 short-lived threads logging 10 lines each", result.stdout)
        # Only the tables that have rows are printed.
        self.assertNotIn("caller syscalls", result.stdout)

    def test_bad_options_are_refused(self):
        with tempfile.TemporaryDirectory(prefix="xlog-bench-test.") as directory:
            for arguments in (["--strategies", "nonsense"], ["--messages", "0"],
                              ["--threads", "x"], ["--strategies", "timer:string"],
                              ["--live-threads", "0"], ["--thread-pairs", "101"],
                              ["--strategies", "xlog-live-threads:string"],
                              ["--strategies", "stdio-once:volatile"],
                              ["--strategies", "xlog-burst:volatile"]):
                result = run_bench(arguments, directory)
                self.assertEqual(result.returncode, 2, arguments)

    def test_volatile_rows(self):
        # The xlog rows with persistent rings off, beside the same rows with
        # them on: same checks, same audit.
        with tempfile.TemporaryDirectory(prefix="xlog-bench-test.") as directory:
            result = run_bench(["--strategies",
                                "xlog-shared,xlog-shared:volatile,xlog-per-thread:volatile,"
                                "xlog-throughput,xlog-throughput:volatile",
                                "--messages", "2000", "--throughput-messages", "50000",
                                "--json", "--no-progress"], directory)
        self.assertEqual(result.returncode, 0, result.stderr)
        rows = json.loads(result.stdout)
        self.assertEqual([row["name"] for row in rows],
                         ["xlog-shared", "xlog-shared:volatile", "xlog-per-thread:volatile",
                          "xlog-throughput", "xlog-throughput:volatile"])
        for row in rows:
            self.assertIs(row["lines_ok"], True, row["name"])
            self.assertEqual(row["label"].endswith("(persistent off)"),
                             row["name"].endswith(":volatile"), row["name"])
            if row["kind"] == "phased":
                # A persistent ring reserves the pages of a lap that doubles
                # faster than the back end populated ahead (lib/common/rings.c,
                # "Room"): a fresh ring's first burst can, at most once per
                # doubling (16 KiB to 1 MiB: 6), never once its laps are grown.
                most = 0 if row["name"].endswith(":volatile") else 6 * row["workers"]
                self.assertLessEqual(row["caller_syscalls"], most, row["name"])
                self.assertEqual(row["caller_mallocs"], 0, row["name"])

    def test_list(self):
        result = subprocess.run([BENCH, "--list"], stdout=subprocess.PIPE, text=True,
                                timeout=30)
        self.assertEqual(result.returncode, 0)
        for name in DEFAULT_SUITE:
            self.assertIn(name.split(":")[0], result.stdout)
        suites = dict(line.split(": ", 1) for line in result.stdout.splitlines()
                      if line.startswith(("Default suite: ", "Quick suite (--quick): ")))
        self.assertEqual(suites["Default suite"].split(","), DEFAULT_SUITE)
        self.assertEqual(suites["Quick suite (--quick)"].split(","), QUICK_SUITE)


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("usage: test_xlog_bench.py PATH/TO/xlog-bench")
    BENCH = os.path.abspath(sys.argv.pop(1))
    unittest.main(verbosity=2)
