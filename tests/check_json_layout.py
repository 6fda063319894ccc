#!/usr/bin/env python3
"""check_json_layout.py - JSON lines read back by a real JSON parser.

test_layouts --json DIR writes JSON lines (hostile strings, a message of
1 MiB, extreme times and numbers) and, for each, the event it came from.
This script parses every line with Python's json and checks each field
against the event: every line is one object with the documented names in
the documented order and no name twice (nothing forged), the raw line is
valid UTF-8 with no control character, C1 control or U+2028/U+2029, and
every string reads back as its bytes decoded with each byte that is not
part of valid UTF-8 replaced by U+FFFD.

Usage: check_json_layout.py TEST_LAYOUTS_PROGRAM
"""
import datetime
import json
import os
import subprocess
import sys
import tempfile

SEVERITY_NUMBERS = {"TRACE": 1, "DEBUG": 5, "INFO": 9, "WARN": 13, "ERROR": 17, "FATAL": 21}
LEVELS = list(SEVERITY_NUMBERS)


def replaced(data: bytes) -> str:
    """data decoded as xlog documents it: a byte that does not start a
    well-formed sequence (Python's strict decoder is the judge) becomes one
    U+FFFD, and decoding goes on at the next byte."""
    out = []
    i = 0
    while i < len(data):
        b = data[i]
        n = 1 if b < 0x80 else 2 if 0xC2 <= b <= 0xDF else 3 if 0xE0 <= b <= 0xEF else \
            4 if 0xF0 <= b <= 0xF4 else 0
        if n:
            try:
                out.append(data[i:i + n].decode("utf-8"))
                i += n
                continue
            except UnicodeDecodeError:
                pass
        out.append("\ufffd")
        i += 1
    return "".join(out)


def timestamp(ns: int) -> str:
    seconds, nanos = divmod(ns, 10**9)
    when = datetime.datetime(1970, 1, 1) + datetime.timedelta(seconds=seconds)
    return when.strftime("%Y-%m-%dT%H:%M:%S") + ".%09dZ" % nanos


def unhex(text: str) -> bytes:
    return b"" if text == "-" else bytes.fromhex(text)


def no_duplicates(pairs):
    names = [name for name, _ in pairs]
    if len(names) != len(set(names)):
        raise ValueError("a name twice: %r" % names)
    return dict(pairs)


def check(number: int, raw: bytes, event: str) -> None:
    ns, level, pid, tid, line, file, function, module, message = event.split(" ")
    text = raw.decode("utf-8")  # strict: the line is valid UTF-8
    for c in text:
        if ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F or c in "\u2028\u2029":
            raise AssertionError("line %d holds U+%04X raw" % (number, ord(c)))
    obj = json.loads(text, object_pairs_hook=no_duplicates)
    module_bytes = unhex(module)
    want_attributes = {
        "code.filepath": replaced(unhex(file)),
        "code.lineno": int(line),
        "code.function": replaced(unhex(function)),
        "thread.id": int(tid),
        "process.pid": int(pid),
    }
    if module_bytes:
        want_attributes["xlog.module"] = replaced(module_bytes)
    want = {
        "timestamp": timestamp(int(ns)),
        "severity_text": LEVELS[int(level)],
        "severity_number": SEVERITY_NUMBERS[LEVELS[int(level)]],
        "body": replaced(unhex(message)),
        "attributes": want_attributes,
    }
    if obj != want or list(obj) != list(want) or list(obj["attributes"]) != list(want_attributes):
        for name in want:
            if obj.get(name) != want[name]:
                raise AssertionError("line %d, %s: expected %r, got %r"
                                     % (number, name, want[name], obj.get(name)))
        raise AssertionError("line %d: names out of order: %r" % (number, list(obj)))


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="xlog-json-") as work:
        subprocess.run([sys.argv[1], "--json", work], check=True)
        with open(os.path.join(work, "lines.jsonl"), "rb") as f:
            data = f.read()
        with open(os.path.join(work, "events.txt")) as f:
            events = f.read().splitlines()
    if not data.endswith(b"\n"):
        raise AssertionError("the last line has no newline")
    lines = data[:-1].split(b"\n")
    if len(lines) != len(events):
        raise AssertionError("%d lines for %d events" % (len(lines), len(events)))
    for number, (raw, event) in enumerate(zip(lines, events), 1):
        check(number, raw, event)
    print("check_json_layout: %d JSON lines parsed and checked (%d bytes)"
          % (len(lines), len(data)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
