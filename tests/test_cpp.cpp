// test_cpp.cpp - the public header used from C++, unchanged: it compiles with
// g++ -Wall -Wextra (-Werror in CI), and the macros give the same lines as
// from C.
#include <xlog.h>

#include "capture/read_logs.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <unistd.h>

static int failures = 0;

static void expect(bool ok, const char *what)
{
    if (!ok) {
        std::fprintf(stderr, "FAILED: %s\n", what);
        failures++;
    }
}

int main()
{
    char dir[] = "/tmp/xlog-cpp-XXXXXX";
    if (!mkdtemp(dir))
        return 1;
    xlog_config cfg = xlog_defaults();
    cfg.dir = dir;
    cfg.use_environment = 0;
    expect(xlog_open(&cfg) == 0, "xlog_open");
    std::string name = "alice";
    const int info_line = __LINE__ + 1;
    xlog_info("user %s logged in, id %d", name.c_str(), 42);
    const int warn_line = __LINE__ + 1;
    XLOG(XLOG_WARN, "disk %d%% full, %.1f GB left", 93, 1.5);
    xlog_debug("not written");
    const int legacy_line = __LINE__ + 1;
    xlogout(XLOG_ERROR, __FILE__, __LINE__, __func__, "legacy %u", 7u);
    expect(xlog_enabled(XLOG_INFO) != 0, "INFO enabled");
    expect(xlog_enabled(XLOG_DEBUG) == 0, "DEBUG disabled");
    expect(xlog_close() == 0, "xlog_close");

    std::string text = read_logs(dir);

    // Each line whole after its timestamp: level, file:line, function,
    // thread id, message; in this order, nothing else.
    std::string tid = std::to_string((long)gettid());
    const std::string want[] = {
        "[INFO] test_cpp.cpp:" + std::to_string(info_line) + " main " + tid +
            " user alice logged in, id 42",
        "[WARN] test_cpp.cpp:" + std::to_string(warn_line) + " main " + tid +
            " disk 93% full, 1.5 GB left",
        "[ERROR] test_cpp.cpp:" + std::to_string(legacy_line) + " main " + tid + " legacy 7",
    };
    std::istringstream in(text);
    std::string line;
    size_t lines = 0;
    for (; std::getline(in, line); lines++) {
        // "YYYY-MM-DD HH:MM:SS.nnnnnnnnn " is 30 bytes.
        std::string rest = line.size() > 30 ? line.substr(30) : "";
        if (lines >= 3 || rest != want[lines]) {
            std::fprintf(stderr, "line %zu: %s\n", lines + 1, line.c_str());
            expect(false, "a line as it must be");
        }
    }
    expect(lines == 3, "exactly three lines");
    std::printf("%s: %zu lines checked, %d failures\n", failures ? "FAIL" : "ok", lines, failures);
    return failures ? 1 : 0;
}
