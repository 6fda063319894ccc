#!/usr/bin/env python3
"""doc_examples.py - compiles every C example of the documentation and runs
the ones that show what they write, so that code a reader copies works and
the output shown next to it is the output it gives.

It is a CTest test (doc_examples, configured in tests/CMakeLists.txt): CMake
gives it the compiler, the header directory, the shared library and the files
to read (README.md and include/xlog.h).  Adding an example to one of those
files needs no change here or in CMake; the block's fence says what it is.

Conventions, the same in Markdown and in the comments of a C header:

  ```c                  A whole source file, exactly as shown.  If it defines
                        main() it is compiled and linked, as a user would,
                        with the header and -lxlog; otherwise compiled only.
  ```c fragment         Statements, not a whole program: compiled as the body
                        of a function, after #include <xlog.h>, <stdio.h>,
                        <stdlib.h> and <string.h>.  Its own preprocessor lines
                        (#define XLOG_MODULE ..., #include ...) are moved above
                        those includes; unused variables are allowed.
  ```text expected-log  What the nearest ```c program above it writes: that
                        program is built as main.c (so __FILE__ and the line
                        numbers are the block's), run in an empty directory
                        with no XLOG_* environment, and the lines of every
                        *.log file it leaves there (files in name order) must
                        be these.  Lines of the default layout are compared
                        apart from their time and thread id; other lines must
                        be equal.

Other fences (```sh, ```text, ...) are ignored.  Every block is compiled with
-std=gnu11 -Wall -Wextra -Werror.  In a C header, the blocks are written in
comments, fences included: the comment's leading " * " is taken off each line,
then the fence's own indentation.  A file given that holds no ```c block is an
error, so that examples cannot disappear unnoticed.

Usage: doc_examples.py --cc CC --include DIR --library LIBXLOG.so --work DIR FILE...
"""
import argparse
import os
import re
import shutil
import subprocess
import sys

FENCE = re.compile(r"^(\s*)```\s*(\S*)\s*(.*?)\s*$")
# A C comment's margin: " * ", "/* " or " */" at the start of a line.
COMMENT_MARGIN = re.compile(r"^\s*(?:/\*+|\*/|\*)? ?")
DEFINES_MAIN = re.compile(r"^\s*int\s+main\s*\(", re.MULTILINE)
# The default line: time, [LEVEL], file:line, function, thread id, message.
DEFAULT_LINE = re.compile(
    r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{9} (\[[A-Z]+\] \S+ \S+) \d+ (.*)$")
FRAGMENT_INCLUDES = ["xlog.h", "stdio.h", "stdlib.h", "string.h"]
CFLAGS = ["-std=gnu11", "-Wall", "-Wextra", "-Werror"]
RUN_SECONDS = 60


class Block:
    root = "."  # paths in messages are relative to this (the files' common directory)

    def __init__(self, path, line, kind, text):
        self.path = path    # the file it was read from
        self.line = line    # line of its opening fence
        self.kind = kind    # "c", "c fragment" or "expected-log"
        self.text = text
        self.expected_log = None  # for a program: the expected-log block after it

    def where(self):
        return "%s:%d" % (os.path.relpath(self.path, Block.root), self.line)


def read_blocks(path):
    """The fenced blocks of a Markdown file, or of the comments of a C file."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    if not path.endswith(".md"):
        lines = [COMMENT_MARGIN.sub("", line, count=1) for line in lines]
    blocks = []
    number = 0
    while number < len(lines):
        opening = FENCE.match(lines[number])
        number += 1
        if not opening:
            continue
        indent, language, words = opening.groups()
        start = number
        body = []
        while number < len(lines) and not re.match(r"^\s*```\s*$", lines[number]):
            line = lines[number]
            body.append(line[len(indent):] if line.startswith(indent) else line.lstrip())
            number += 1
        if number == len(lines):
            raise SystemExit("%s:%d: a fence that is never closed" % (path, start))
        number += 1
        kind = None
        if language == "c":
            if words not in ("", "fragment"):
                raise SystemExit("%s:%d: unknown ```c block kind '%s' (known: fragment)"
                                 % (path, start, words))
            kind = ("c " + words).strip()
        elif words == "expected-log":
            kind = "expected-log"
        if kind:
            blocks.append(Block(path, start, kind, "\n".join(body) + "\n"))
    return blocks


def pair_expected_logs(blocks):
    program = None
    for block in blocks:
        if block.kind == "c":
            program = block
        elif block.kind == "c fragment":
            program = None
        elif block.kind == "expected-log":
            if program is None or not DEFINES_MAIN.search(program.text):
                raise SystemExit("%s: expected-log without a ```c program just above it"
                                 % block.where())
            program.expected_log = block
            program = None


def fragment_source(text):
    """The fragment inside a function, its preprocessor lines hoisted."""
    hoisted, body = [], []
    continued = False
    for line in text.split("\n"):
        if continued or line.lstrip().startswith("#"):
            hoisted.append(line)
            continued = line.endswith("\\")
        else:
            body.append(line)
    includes = ["#include <%s>" % name for name in FRAGMENT_INCLUDES]
    return "\n".join(hoisted + includes + ["void doc_fragment(void)", "{"] + body + ["}", ""])


def normalise(line):
    match = DEFAULT_LINE.match(line)
    return "<time> %s <tid> %s" % match.groups() if match else line


def log_lines(directory):
    paths = []
    for root, _, names in os.walk(directory):
        paths += [os.path.join(root, name) for name in names if name.endswith(".log")]
    lines = []
    for path in sorted(paths):
        with open(path, encoding="utf-8", errors="replace") as f:
            lines += f.read().splitlines()
    return lines


def check(block, args, directory):
    """Returns None, or why the block fails."""
    os.makedirs(directory)
    source = os.path.join(directory, "main.c")
    program = block.kind == "c" and DEFINES_MAIN.search(block.text)
    with open(source, "w", encoding="utf-8") as f:
        f.write(fragment_source(block.text) if block.kind == "c fragment" else block.text)
    command = [args.cc] + CFLAGS + ["-I", args.include]
    if block.kind == "c fragment":
        command.append("-Wno-unused")
    library_dir = os.path.dirname(os.path.abspath(args.library))
    if program:
        command += ["-o", "main", "main.c", "-L", library_dir, "-lxlog",
                    "-Wl,-rpath," + library_dir]
    else:
        command += ["-c", "main.c"]
    built = subprocess.run(command, cwd=directory, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
    if built.returncode != 0:
        return "does not compile:\n" + built.stdout
    if block.expected_log is None:
        return None

    run_dir = os.path.join(directory, "run")
    os.makedirs(run_dir)
    environment = {k: v for k, v in os.environ.items() if not k.startswith("XLOG_")}
    try:
        ran = subprocess.run([os.path.join(directory, "main")], cwd=run_dir, env=environment,
                             stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True, timeout=RUN_SECONDS)
    except subprocess.TimeoutExpired:
        return "did not finish within %d s" % RUN_SECONDS
    if ran.returncode != 0:
        return "exited with status %d:\n%s" % (ran.returncode, ran.stdout)
    got = [normalise(line) for line in log_lines(run_dir)]
    want = [normalise(line) for line in block.expected_log.text.rstrip("\n").split("\n")]
    if got != want:
        return ("writes other lines than %s shows (time and thread id aside):\n"
                "  expected:\n%s\n  written:\n%s" % (
                    block.expected_log.where(),
                    "\n".join("    " + line for line in want),
                    "\n".join("    " + line for line in got) or "    (nothing)"))
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cc", required=True)
    parser.add_argument("--include", required=True)
    parser.add_argument("--library", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("files", nargs="+")
    args = parser.parse_args()

    shutil.rmtree(args.work, ignore_errors=True)
    Block.root = os.path.commonpath([os.path.dirname(os.path.abspath(f)) for f in args.files])
    checked = failed = 0
    for path in args.files:
        blocks = read_blocks(path)
        pair_expected_logs(blocks)
        c_blocks = [block for block in blocks if block.kind.startswith("c")]
        if not c_blocks:
            print("FAIL %s: no ```c block" % path)
            checked += 1
            failed += 1
        for block in c_blocks:
            directory = os.path.join(args.work, "%s-%d" % (os.path.basename(path), block.line))
            why = check(block, args, directory)
            checked += 1
            what = block.kind + (", run" if block.expected_log else "")
            if why is None:
                print("ok   %s (%s)" % (block.where(), what))
            else:
                print("FAIL %s (%s) %s" % (block.where(), what, why))
                failed += 1
    print("%d passed, %d failed" % (checked - failed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
