/* The statements whose instructions on the calling thread
 * caller_instructions_within_targets counts (count_instructions.py), for
 * caller.c (compiled as C11 and as C99) and caller.cpp (as C++17).
 *
 * Each statement is alone in the loop of a function of its own, which
 * callgrind's --toggle-collect names: what that function runs is counted,
 * the library's code it calls included, and nothing else of the program.
 * The functions are never inlined, so that they exist under their names,
 * and have external (C) linkage, so that the compiler neither renames them
 * (clones such as run_3args.constprop.0) nor mangles them (C++).
 *
 *   caller DIR CASE N : opens xlog in DIR (logs in DIR/logs, rings in
 *   DIR/shm), runs CASE's loop N times, closes, and exits 1 unless each
 *   enabled call gave one line and none was dropped. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xlog.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The loop alone, for what the others' loops cost: the empty asm keeps
 * the loop and its counter without adding an instruction. */
__attribute__((noinline)) void run_loop_only(long n)
{
    for (long i = 0; i < n; i++)
        __asm__ volatile("" : : "r"(i));
}

__attribute__((noinline)) void run_3args(long n)
{
    for (long i = 0; i < n; i++)
        xlog_info("Logging int: %lu, int: %lu, double: %f", i, 2 * i, i / 2.0);
}

/* The same while the thread has a context (xlog.h, "Context"): the call
 * must cost what it costs without one.  The context is set and cleared
 * once, which an iteration's cost leaves out. */
__attribute__((noinline)) void run_3args_ctx(long n)
{
    xlog_context_set("request_id", "%s", "4bf92f3577b34da6");
    xlog_context_set("user", "%s", "alice");
    for (long i = 0; i < n; i++)
        xlog_info("Logging int: %lu, int: %lu, double: %f", i, 2 * i, i / 2.0);
    xlog_context_clear(NULL);
}

__attribute__((noinline)) void run_no_arg(long n)
{
    for (long i = 0; i < n; i++)
        xlog_info("Logging nothing");
}

/* Strings of 14 and 5 bytes, alternating, and one of 8. */
__attribute__((noinline)) void run_2strings(long n)
{
    for (long i = 0; i < n; i++)
        xlog_info("user %s logged in from %s", (i & 1) ? "alice" : "bob.smith.long", "10.0.0.1");
}

/* DEBUG under the default threshold (INFO): the arguments are not even
 * evaluated. */
__attribute__((noinline)) void run_disabled(long n)
{
    for (long i = 0; i < n; i++)
        xlog_debug("Logging int: %lu, int: %lu, double: %f", i, 2 * i, i / 2.0);
}

#ifdef __cplusplus
}
#endif

struct caller_case {
    const char *name;
    void (*run)(long n);
    int logs; /* each call writes a line */
};

static const struct caller_case caller_cases[] = {
    {"loop_only", run_loop_only, 0}, {"3args", run_3args, 1},       {"no_arg", run_no_arg, 1},
    {"3args_ctx", run_3args_ctx, 1},
    {"2strings", run_2strings, 1},   {"disabled", run_disabled, 0},
};

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: %s DIR CASE N\n", argv[0]);
        return 2;
    }
    const struct caller_case *c = NULL;
    for (size_t k = 0; k < sizeof caller_cases / sizeof caller_cases[0]; k++)
        if (strcmp(caller_cases[k].name, argv[2]) == 0)
            c = &caller_cases[k];
    if (!c) {
        fprintf(stderr, "%s: no case named %s\n", argv[0], argv[2]);
        return 2;
    }
    long n = atol(argv[3]);
    char logs[4096], shm[4096];
    snprintf(logs, sizeof logs, "%s/logs", argv[1]);
    snprintf(shm, sizeof shm, "%s/shm", argv[1]);

    xlog_config cfg = xlog_defaults();
    cfg.dir = logs;
    cfg.persistent_dir = shm;
    cfg.use_environment = 0;
    /* Room for every record of the loop: no call waits, drops, or finds
     * the ring's end. */
    cfg.ring_size = (size_t)64 << 20;
    int err = xlog_open(&cfg);
    if (err) {
        fprintf(stderr, "%s: xlog_open: %s\n", argv[0], xlog_strerror(err));
        return 1;
    }
    c->run(n);
    xlog_close();

    /* A count is only worth something if the calls did their work. */
    xlog_counters counters;
    xlog_stats(&counters);
    unsigned long long expected = c->logs ? (unsigned long long)n : 0;
    if (counters.messages != expected || counters.dropped != 0) {
        fprintf(stderr, "%s: case %s, %ld calls: %llu lines written and %llu dropped, expected %llu and 0\n",
                argv[0], c->name, n, (unsigned long long)counters.messages,
                (unsigned long long)counters.dropped, expected);
        return 1;
    }
    return 0;
}
