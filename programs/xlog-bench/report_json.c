/*
 * report_json.c - the rows as one JSON array, one object per strategy, for
 * scripts (tests/bench checks it).  Every figure is a number; a figure the
 * row does not have is null.  Field names and units are listed in
 * docs/BENCHMARKS.md.
 */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "report.h"

static void json_string(FILE *out, const char *text)
{
    fputc('"', out);
    for (const unsigned char *c = (const unsigned char *)text; *c != '\0'; c++) {
        if (*c == '"' || *c == '\\')
            fprintf(out, "\\%c", *c);
        else if (*c < 0x20)
            fprintf(out, "\\u%04x", *c);
        else
            fputc(*c, out);
    }
    fputc('"', out);
}

static void field_string(FILE *out, const char *name, const char *value)
{
    fprintf(out, ", \"%s\": ", name);
    json_string(out, value);
}

/* A figure that is absent when negative. */
static void field_number(FILE *out, const char *name, double value)
{
    if (value < 0 || !isfinite(value))
        fprintf(out, ", \"%s\": null", name);
    else if (value == floor(value) && value < 9e15)
        fprintf(out, ", \"%s\": %.0f", name, value);
    else
        fprintf(out, ", \"%s\": %.6g", name, value);
}

static void field_integer(FILE *out, const char *name, int64_t value)
{
    if (value < 0)
        fprintf(out, ", \"%s\": null", name);
    else
        fprintf(out, ", \"%s\": %" PRId64, name, value);
}

static void field_boolean(FILE *out, const char *name, int value)
{
    fprintf(out, ", \"%s\": %s", name, value < 0 ? "null" : value ? "true" : "false");
}

static const char *kind_name(row_kind kind)
{
    switch (kind) {
    case ROW_TIMER: return "timer";
    case ROW_PHASED: return "phased";
    case ROW_THROUGHPUT: return "throughput";
    case ROW_TERMINAL: return "terminal";
    case ROW_THREADS: return "threads";
    }
    return "";
}

static void latency_object(FILE *out, const bench_row *row)
{
    const latency_stats *l = &row->latency;
    if (l->count == 0) {
        fprintf(out, ", \"latency_ns\": null");
        return;
    }
    fprintf(out, ", \"latency_ns\": {\"count\": %" PRIu64, l->count);
    field_number(out, "avg", l->avg_ns);
    field_number(out, "min", l->min_ns);
    field_number(out, "p50", l->p50_ns);
    field_number(out, "p99", l->p99_ns);
    field_number(out, "p999", l->p999_ns);
    field_number(out, "max", l->max_ns);
    fputc('}', out);
}

static void row_object(FILE *out, const bench_options *options, const bench_row *row)
{
    int has_files = row->kind != ROW_TIMER;
    fprintf(out, "{\"name\": ");
    json_string(out, row->name);
    field_string(out, "label", row->label);
    field_string(out, "source", row->source);
    field_string(out, "kind", kind_name(row->kind));
    field_boolean(out, "available", row->available);
    field_string(out, "note", row->note);
    field_integer(out, "workers", row->workers);
    field_boolean(out, "workers_are_processes", row->workers_are_processes);
    field_integer(out, "messages_per_worker",
                  row->kind == ROW_PHASED ? (int64_t)options->messages : -1);
    latency_object(out, row);
    field_number(out, "timer_pair_p50_ns", row->timer_pair_p50_ns);
    field_number(out, "first_call_ns", row->first_call_ns);
    field_integer(out, "first_call_mallocs", row->first_call_mallocs);
    field_integer(out, "first_call_syscalls", row->first_call_syscalls);
    field_number(out, "throughput_seconds", row->messages_per_s >= 0 ? row->seconds : -1);
    field_number(out, "files_seconds", row->files_seconds);
    field_integer(out, "throughput_messages",
                  row->throughput_messages ? (int64_t)row->throughput_messages : -1);
    field_number(out, "messages_per_s", row->messages_per_s);
    field_integer(out, "write_calls", row->write_calls);
    field_number(out, "write_calls_per_1000_messages", bench_row_writes_per_1000(row));
    field_integer(out, "bytes_written", row->bytes_written);
    field_number(out, "write_calls_per_64kib", bench_row_writes_per_64kib(row));
    field_integer(out, "messages_sent", has_files ? (int64_t)row->messages_sent : -1);
    field_boolean(out, "writes_nothing", row->writes_nothing);
    if (has_files)
        field_string(out, "line_shape", row->line_shape == LINE_JSON     ? "json"
                                          : row->line_shape == LINE_BINARY ? "binary"
                                                                           : "text");
    else
        fprintf(out, ", \"line_shape\": null");
    field_integer(out, "lines_written", has_files && row->lines_ok >= 0
                                            ? (int64_t)row->census.lines : -1);
    field_integer(out, "lines_malformed", has_files && row->lines_ok >= 0
                                              ? (int64_t)row->census.malformed : -1);
    field_boolean(out, "lines_ok", row->lines_ok);
    field_integer(out, "caller_mallocs", row->caller_mallocs);
    field_integer(out, "caller_syscalls", row->caller_syscalls);
    field_integer(out, "rss_before_kib", row->rss_before_kib);
    field_integer(out, "peak_rss_kib", row->peak_rss_kib);
    field_integer(out, "memory_bound_kib", row->memory_bound_kib);
    field_integer(out, "rss_after_kib", row->rss_after_kib);
    field_integer(out, "rss_growth_kib", row->rss_growth_kib);
    field_integer(out, "rss_growth_off_kib", row->rss_growth_off_kib);
    field_integer(out, "shm_kib", row->shm_kib);
    field_integer(out, "rss_shmem_kib", row->rss_shmem_kib);
    field_integer(out, "lines_per_thread", row->thread_lines > 0 ? row->thread_lines : -1);
    field_number(out, "first_call_p50_ns", row->first_call_p50_ns);
    field_integer(out, "pairs", row->pairs > 0 ? row->pairs : -1);
    field_number(out, "wall_seconds", row->wall_seconds);
    field_number(out, "wall_seconds_off", row->wall_seconds_off);
    field_number(out, "wall_ratio", row->wall_ratio);
    field_integer(out, "xlog_blocked", row->xlog_blocked);
    field_integer(out, "xlog_dropped", row->xlog_dropped);
    field_integer(out, "console_dropped", row->console_dropped);
    field_integer(out, "syslog_received", row->syslog_received);
    field_integer(out, "syslog_malformed", row->syslog_malformed);
    field_integer(out, "syslog_dropped", row->syslog_dropped);
    field_integer(out, "syslog_lost_in_kernel", row->syslog_lost_in_kernel);
    field_boolean(out, "syslog_balanced", row->syslog_balanced);
    field_integer(out, "terminal_lines",
                  row->kind == ROW_TERMINAL && row->available ? (int64_t)row->terminal_lines : -1);
    field_integer(out, "file_lines_at_resume", row->file_lines_at_resume);
    field_integer(out, "lines_due_at_resume", row->lines_due_at_resume);
    field_number(out, "stall_worst_ns", row->stall_worst_ns);
    fputc('}', out);
}

void report_json(FILE *out, const bench_options *options, const bench_row *rows, int count)
{
    fputs("[\n", out);
    for (int i = 0; i < count; i++) {
        fputs("  ", out);
        row_object(out, options, &rows[i]);
        fputs(i + 1 < count ? ",\n" : "\n", out);
    }
    fputs("]\n", out);
}
