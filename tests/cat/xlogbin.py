"""Writes binary xlog files byte by byte from docs/BINARY.md, for the tests of
xlog-cat: a second, independent reading of the format (it shares no code
with lib/binary), so that the decoder is checked against the document and
not against itself."""

import math
import struct

MAGIC = b"\x89XLOG\r\n\x1a"

# Argument kinds (docs/BINARY.md, "Arguments, by kind").
INT, LONG, LLONG, INTMAX, SIZE, PTRDIFF, WINT, DOUBLE, LDOUBLE, PTR, STR, WSTR, ERRNO = range(1, 14)
STAR = 0x80  # on a %s bounded by a '*' precision

TRACE, DEBUG, INFO, WARN, ERROR, FATAL = range(6)

TRUNCATED, SUPPRESSED, LEVEL = 0x01, 0x02, 0x04


def varint(v):
    assert 0 <= v < 1 << 64
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def svarint(v):
    """The zigzag varint of the 64 bits of v (a signed or unsigned value)."""
    v &= (1 << 64) - 1
    signed = v - (1 << 64) if v >> 63 else v
    return varint(((signed << 1) ^ (signed >> 63)) & ((1 << 64) - 1))


def string(b):
    return varint(len(b)) + b


def long_double(x):
    """x as x86-64 holds a long double: 80-bit extended, then 6 bytes of 0."""
    if x == 0:
        return bytes(16)
    sign = 0x8000 if x < 0 else 0
    m, e = math.frexp(abs(x))  # abs(x) = m * 2**e, 0.5 <= m < 1
    mantissa = int(m * (1 << 64))  # the integer bit explicit, at bit 63
    exponent = e - 1 + 16383
    return struct.pack("<QH", mantissa, sign | exponent) + bytes(6)


def arg(kind, value):
    k = kind & 0x7F
    if k == DOUBLE:
        return struct.pack("<d", value)
    if k == LDOUBLE:
        return long_double(value)
    if k == PTR:
        return varint(value)
    if k == STR:
        return varint(0) if value is None else varint(len(value) + 1) + value
    if k == WSTR:
        if value is None:
            return varint(0)
        return varint(len(value) + 1) + b"".join(varint(ord(c)) for c in value)
    return svarint(value)  # the integers and %m


class Block:
    """One block: the Process entry first, then what the test adds."""

    def __init__(self, writer=0x1234, base_ns=0, pid=4321, max_message=16384,
                 host=b"host", program=b"prog", options=0, version=1, header_size=32):
        self.writer, self.base_ns = writer, base_ns
        self.version, self.header_size = version, header_size
        self.body = bytearray()
        self.body += b"\x01" + varint(pid) + varint(max_message)
        self.body += struct.pack("<d", 1.0) + varint(0) + varint(base_ns)
        self.body += string(host) + string(program) + varint(options)

    def site(self, number, level, line, fmt, file=b"src/main.c", function=b"main",
             module=b"", kinds=()):
        self.body += b"\x02" + varint(number) + bytes([level]) + varint(line)
        self.body += varint(len(kinds)) + bytes(kinds)
        self.body += string(fmt) + string(file) + string(function) + string(module)
        return self

    def thread(self, tid):
        self.body += b"\x03" + varint(tid)
        return self

    def thread_name(self, tid, name):
        self.body += b"\x06" + varint(tid) + string(name)
        return self

    def record(self, site, delta, kinds=(), values=(), level=None, truncated=False,
               suppressed=None):
        flags = (TRUNCATED if truncated else 0) | (SUPPRESSED if suppressed is not None else 0)
        flags |= LEVEL if level is not None else 0
        self.body += bytes([0x80 | flags]) + varint(site) + varint(delta)
        if level is not None:
            self.body += bytes([level])
        for kind, value in zip(kinds, values):
            self.body += arg(kind, value)
        if suppressed is not None:
            self.body += varint(suppressed)
        return self

    def message(self, delta, level, line, file, function, module, text):
        self.body += b"\x04" + varint(delta) + bytes([level]) + varint(line)
        self.body += string(file) + string(function) + string(module) + string(text)
        return self

    def raw(self, b):
        self.body += b
        return self

    def bytes(self):
        header = MAGIC + struct.pack("<HHIQQ", self.version, self.header_size,
                                     self.header_size + len(self.body), self.writer,
                                     self.base_ns)
        return header + bytes(self.header_size - 32) + bytes(self.body)
