"""`xlog-cat -f` as a child whose output a test reads as it comes, for
test_cat.py and test_e2e.py."""

import os
import subprocess
import time


class Follower:
    """xlog-cat -f PATH... running; `got` is its output read so far."""

    def __init__(self, cat, *paths):
        self.child = subprocess.Popen([cat, "-f", *paths], stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE)
        os.set_blocking(self.child.stdout.fileno(), False)
        self.got = b""

    def read_until(self, lines, seconds=60):
        """Reads its output until it holds `lines` lines, or for `seconds`
        at most (a follower that misses lines must fail the test, not hang
        it); returns all of it so far."""
        deadline = time.monotonic() + seconds
        while self.got.count(b"\n") < lines and time.monotonic() < deadline:
            chunk = self.child.stdout.read()
            if chunk:
                self.got += chunk
            else:
                time.sleep(0.02)
        return self.got

    def read_rest(self):
        """Adds what it has written since the last read."""
        self.got += self.child.stdout.read() or b""
        return self.got

    def stop(self):
        """Kills it; returns what it wrote on stderr."""
        self.child.kill()
        _, err = self.child.communicate()
        return err
