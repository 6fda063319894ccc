// test_cpp.cpp - the public header used from C++, unchanged: it compiles with
// g++ -Wall -Wextra (-Werror in CI), and the macros give the same lines as
// from C.
#include <xlog.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <dirent.h>
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
    xlog_info("user %s logged in, id %d", name.c_str(), 42);
    XLOG(XLOG_WARN, "disk %d%% full, %.1f GB left", 93, 1.5);
    xlog_debug("not written");
    xlogout(XLOG_ERROR, __FILE__, __LINE__, __func__, "legacy %u", 7u);
    expect(xlog_enabled(XLOG_INFO) != 0, "INFO enabled");
    expect(xlog_enabled(XLOG_DEBUG) == 0, "DEBUG disabled");
    expect(xlog_close() == 0, "xlog_close");

    std::string text;
    DIR *d = opendir(dir);
    for (dirent *e; d && (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        std::string path = std::string(dir) + "/" + e->d_name;
        std::ifstream in(path.c_str());
        std::stringstream ss;
        ss << in.rdbuf();
        text += ss.str();
        unlink(path.c_str());
    }
    if (d)
        closedir(d);
    rmdir(dir);

    expect(text.find("[INFO] test_cpp.cpp:") != std::string::npos, "INFO line");
    expect(text.find(" user alice logged in, id 42\n") != std::string::npos, "INFO message");
    expect(text.find("[WARN] test_cpp.cpp:") != std::string::npos, "WARN line");
    expect(text.find(" disk 93% full, 1.5 GB left\n") != std::string::npos, "WARN message");
    expect(text.find(" main ") != std::string::npos, "function name");
    expect(text.find(" legacy 7\n") != std::string::npos, "xlogout message");
    expect(text.find("not written") == std::string::npos, "DEBUG filtered");
    size_t lines = 0;
    for (char c : text)
        lines += c == '\n';
    expect(lines == 3, "exactly three lines");
    std::printf("%s: %zu lines checked, %d failures\n", failures ? "FAIL" : "ok", lines, failures);
    return failures ? 1 : 0;
}
