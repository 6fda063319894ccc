// context_cpp.cpp - xlog_context_scope (xlog.h, "Context") compiled as C++:
// a pair set for a scope and cleared at its end, nested scopes, a scope
// whose set failed, each line compared whole.
#include <xlog.h>

#include "capture/read_logs.hpp"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
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

static void serve(unsigned long long id)
{
    xlog_context_scope request("request_id", "%llu", id);
    expect(request.status() == 0, "the scope's set");
    xlog_info("start");
    {
        xlog_context_scope user("user", "%s", "alice");
        xlog_info("inner");
    }
    xlog_info("end");
}

int main()
{
    char dir[] = "/tmp/xlog-context-cpp-XXXXXX";
    if (!mkdtemp(dir))
        return 1;
    xlog_config cfg = xlog_defaults();
    cfg.dir = dir;
    cfg.use_environment = 0;
    cfg.file_pattern = "{context}|{message}";
    expect(xlog_open(&cfg) == 0, "xlog_open");
    serve(42);
    xlog_info("after");
    {
        // A key set before the scope is replaced, then cleared: nothing
        // is restored.
        expect(xlog_context_set("request_id", "%s", "outer") == 0, "set outside");
        {
            xlog_context_scope again("request_id", "%s", "inner");
            xlog_info("replaced");
        }
        xlog_info("cleared");
    }
    {
        // A set that fails clears nothing at the scope's end.
        expect(xlog_context_set("kept", "%s", "yes") == 0, "set kept");
        std::string long_value(XLOG_CONTEXT_MAX_VALUE + 1, 'v');
        {
            xlog_context_scope refused("kept", "%s", long_value.c_str());
            expect(refused.status() == -E2BIG, "a value too long");
            xlog_info("refused");
        }
        xlog_info("still kept");
        expect(xlog_context_clear(nullptr) == 0, "clear all");
    }
    expect(xlog_close() == 0, "xlog_close");

    std::string text = read_logs(dir);
    const std::string want[] = {
        "request_id=42|start", "request_id=42 user=alice|inner", "request_id=42|end",
        "|after",              "request_id=inner|replaced",      "|cleared",
        "kept=yes|refused",    "kept=yes|still kept",
    };
    std::istringstream in(text);
    std::string line;
    size_t lines = 0;
    while (std::getline(in, line)) {
        if (lines < sizeof want / sizeof want[0] && line != want[lines]) {
            std::fprintf(stderr, "line %zu: \"%s\", not \"%s\"\n", lines, line.c_str(),
                         want[lines].c_str());
            failures++;
        }
        lines++;
    }
    expect(lines == sizeof want / sizeof want[0], "eight lines");
    std::string rm = std::string("rm -rf ") + dir;
    expect(std::system(rm.c_str()) == 0, "rm");
    return failures ? 1 : 0;
}
