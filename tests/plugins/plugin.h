/*
 * plugin.h - the body of the plugins test_plugins.c loads and unloads.
 *
 * Each plugin_<name>.c expands PLUGIN_BODY(name) once: the plugins have the
 * same code and the same size, so that one loaded after another was
 * unloaded lands at the same address, with its call sites where the other's
 * were, while their files, functions, formats and strings differ.  Every
 * string a line needs lives in the plugin, and goes with it at dlclose.
 */
#ifndef XLOG_TEST_PLUGIN_H
#define XLOG_TEST_PLUGIN_H

#include <xlog.h>

/* plugin_lines(n) logs, for i in 0..n-1, the three lines a site of each
 * kind makes: without strings (the shortest path), with a string, and with
 * a format that is not a literal (parsed at every call). */
#define PLUGIN_BODY(name)                                                                       \
    static const char name##_text[] = "a string of " #name;                                   \
    const char *volatile name##_format = #name " dynamic %d";                                 \
    __attribute__((constructor)) static void name##_loaded(void)                              \
    {                                                                                          \
        xlog_info("loaded %s", name##_text);                                                   \
    }                                                                                          \
    __attribute__((destructor)) static void name##_unloads(void)                              \
    {                                                                                          \
        xlog_info("unloads %s", name##_text);                                                  \
    }                                                                                          \
    static void name##_line(int i)                                                             \
    {                                                                                          \
        xlog_info(#name " scalar %d", i);                                                      \
        xlog_info(#name " string %d %s", i, name##_text);                                      \
        xlog_info(name##_format, i);                                                           \
    }                                                                                          \
    void plugin_lines(int n)                                                                   \
    {                                                                                          \
        for (int i = 0; i < n; i++)                                                            \
            name##_line(i);                                                                    \
    }                                                                                          \
    /* What the test expects, asked before dlclose. */                                         \
    const char *plugin_file(void)                                                              \
    {                                                                                          \
        return __FILE__;                                                                       \
    }                                                                                          \
    int plugin_line(void)                                                                      \
    {                                                                                          \
        return __LINE__;                                                                       \
    }

#endif
