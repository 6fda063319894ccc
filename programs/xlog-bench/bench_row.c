/*
 * bench_row.c - a fresh result row, the figures derived from it, and the line
 * check every strategy that writes files goes through.
 */
#include "bench.h"

#include <stdio.h>
#include <string.h>

void bench_row_init(bench_row *row, const char *name, const char *label, const char *source,
                    row_kind kind)
{
    memset(row, 0, sizeof *row);
    snprintf(row->name, sizeof row->name, "%s", name);
    snprintf(row->label, sizeof row->label, "%s", label);
    snprintf(row->source, sizeof row->source, "%s", source);
    row->kind = kind;
    row->first_call_ns = -1;
    row->first_call_mallocs = -1;
    row->first_call_syscalls = -1;
    row->timer_pair_p50_ns = -1;
    row->files_seconds = -1;
    row->messages_per_s = -1;
    row->write_calls = -1;
    row->bytes_written = -1;
    row->lines_ok = -1;
    row->caller_mallocs = -1;
    row->caller_syscalls = -1;
    row->rss_before_kib = -1;
    row->peak_rss_kib = -1;
    row->memory_bound_kib = -1;
    row->rss_after_kib = -1;
    row->rss_growth_kib = -1;
    row->rss_growth_off_kib = -1;
    row->shm_kib = -1;
    row->rss_shmem_kib = -1;
    row->first_call_p50_ns = -1;
    row->wall_seconds = -1;
    row->wall_seconds_off = -1;
    row->wall_ratio = -1;
    row->xlog_blocked = -1;
    row->xlog_dropped = -1;
    row->console_dropped = -1;
    row->syslog_received = -1;
    row->syslog_malformed = -1;
    row->syslog_dropped = -1;
    row->syslog_lost_in_kernel = -1;
    row->syslog_balanced = -1;
    row->file_lines_at_resume = -1;
    row->lines_due_at_resume = -1;
    row->stall_worst_ns = -1;
}

int bench_row_check_lines(bench_row *row, const char *dir)
{
    int rc = census_directory(dir, row->line_shape, &row->census);
    uint64_t due = row->writes_nothing ? 0 : row->messages_sent;
    row->lines_ok = rc == 0 && row->census.lines == due && row->census.malformed == 0;
    return row->lines_ok;
}

double bench_row_writes_per_1000(const bench_row *row)
{
    if (row->write_calls < 0 || row->throughput_messages == 0)
        return -1;
    return 1000.0 * (double)row->write_calls / (double)row->throughput_messages;
}

double bench_row_writes_per_64kib(const bench_row *row)
{
    if (row->write_calls < 0 || row->bytes_written <= 0)
        return -1;
    return (double)row->write_calls / ((double)row->bytes_written / 65536.0);
}
