/*
 * report_svg.c - draws the latency percentiles of every row that has them as
 * an SVG bar chart: one group per strategy, four bars (median, p99, p99.9,
 * max) labelled with the strategy's name, nanoseconds on a log scale, and a dashed line at the cost of one timer
 * pair, so that the gap between the strategies is visible at a glance.
 * Plain SVG 1.1 written by hand: no dependency, opens in any browser.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report.h"

#define LEFT 100.0
#define RIGHT 30.0
#define TOP 80.0
#define PLOT_HEIGHT 380.0
#define BOTTOM 170.0
#define BAR_WIDTH 13.0
#define GROUP_GAP 22.0
#define PERCENTILES 4

static const char *const percentile_names[PERCENTILES] = {"median", "p99", "p99.9", "max"};
static const char *const percentile_colours[PERCENTILES] = {"#1f4e9c", "#f28e2b", "#d62728",
                                                            "#8c8c8c"};

static double percentile_value(const bench_row *row, int which)
{
    switch (which) {
    case 0: return row->latency.p50_ns;
    case 1: return row->latency.p99_ns;
    case 2: return row->latency.p999_ns;
    default: return row->latency.max_ns;
    }
}

static int has_latency(const bench_row *row)
{
    return row->available && row->latency.count > 0;
}

static void xml_text(FILE *out, const char *text)
{
    for (; *text != '\0'; text++) {
        switch (*text) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '"': fputs("&quot;", out); break;
        default: fputc(*text, out);
        }
    }
}

/* "1 ns", "10 us", "1 s" for a power of ten of nanoseconds. */
static void decade_label(char *label, size_t capacity, int exponent)
{
    static const char *const units[] = {"ns", "\xc2\xb5s", "ms", "s"};
    int unit = exponent / 3;
    if (unit > 3)
        unit = 3;
    snprintf(label, capacity, "%.0f %s", pow(10, exponent - 3 * unit), units[unit]);
}

typedef struct scale {
    int low_exponent, high_exponent;
} scale;

static double scale_y(const scale *s, double ns)
{
    if (ns < 1)
        ns = 1;
    double fraction = (log10(ns) - s->low_exponent) / (double)(s->high_exponent - s->low_exponent);
    if (fraction < 0)
        fraction = 0;
    return TOP + PLOT_HEIGHT * (1 - fraction);
}

static void draw_axes(FILE *out, const scale *s, double width)
{
    char label[32];
    for (int e = s->low_exponent; e <= s->high_exponent; e++) {
        double y = scale_y(s, pow(10, e));
        decade_label(label, sizeof label, e);
        fprintf(out,
                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#dddddd\"/>\n"
                "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" font-size=\"12\">%s</text>\n",
                LEFT, y, width - RIGHT, y, LEFT - 8, y + 4, label);
    }
    fprintf(out,
            "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333333\"/>\n"
            "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333333\"/>\n",
            LEFT, TOP, LEFT, TOP + PLOT_HEIGHT, LEFT, TOP + PLOT_HEIGHT, width - RIGHT,
            TOP + PLOT_HEIGHT);
    fprintf(out,
            "<text transform=\"translate(22 %.1f) rotate(-90)\" text-anchor=\"middle\" "
            "font-size=\"13\">time per call (log scale)</text>\n"
            "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" fill=\"#555555\">strategy "
            "(xlog-bench --list says what each one is)</text>\n",
            TOP + PLOT_HEIGHT / 2, LEFT, TOP + PLOT_HEIGHT + BOTTOM - 12);
}

static void draw_legend(FILE *out)
{
    fprintf(out,
            "<text x=\"%.1f\" y=\"28\" font-size=\"17\" font-weight=\"bold\">xlog-bench: "
            "latency of one log call, per strategy</text>\n",
            LEFT);
    double x = LEFT;
    for (int p = 0; p < PERCENTILES; p++) {
        fprintf(out,
                "<rect x=\"%.1f\" y=\"44\" width=\"12\" height=\"12\" fill=\"%s\"/>"
                "<text x=\"%.1f\" y=\"55\" font-size=\"12\">%s</text>\n",
                x, percentile_colours[p], x + 17, percentile_names[p]);
        x += 80;
    }
    fprintf(out,
            "<line x1=\"%.1f\" y1=\"50\" x2=\"%.1f\" y2=\"50\" stroke=\"#000000\" "
            "stroke-dasharray=\"5,3\"/><text x=\"%.1f\" y=\"55\" font-size=\"12\">one timer "
            "pair (median)</text>\n",
            x, x + 28, x + 34);
}

int report_svg(const char *path, const bench_row *rows, int count)
{
    int groups = 0;
    double smallest = 1e300, largest = 1;
    for (int i = 0; i < count; i++) {
        if (!has_latency(&rows[i]))
            continue;
        groups++;
        if (rows[i].latency.p50_ns < smallest)
            smallest = rows[i].latency.p50_ns;
        if (rows[i].latency.max_ns > largest)
            largest = rows[i].latency.max_ns;
    }
    /* One decade below the smallest median, so that even the shortest bar shows. */
    int low = groups ? (int)floor(log10(smallest > 1 ? smallest : 1)) - 1 : 0;
    scale s = {.low_exponent = low > 0 ? low : 0,
               .high_exponent = (int)ceil(log10(largest))};
    if (s.high_exponent <= s.low_exponent)
        s.high_exponent = s.low_exponent + 1;
    double group_width = PERCENTILES * BAR_WIDTH + GROUP_GAP;
    double width = LEFT + RIGHT + (groups > 0 ? groups : 1) * group_width + 40;
    if (width < 640)
        width = 640;
    double height = TOP + PLOT_HEIGHT + BOTTOM;

    FILE *out = fopen(path, "w");
    if (out == NULL)
        return -errno;
    fprintf(out,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
            "viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\">\n"
            "<rect width=\"100%%\" height=\"100%%\" fill=\"#ffffff\"/>\n",
            width, height, width, height);
    draw_legend(out);
    draw_axes(out, &s, width);

    double x = LEFT + GROUP_GAP;
    double timer_median = -1;
    for (int i = 0; i < count; i++) {
        const bench_row *row = &rows[i];
        if (!has_latency(row))
            continue;
        if (row->kind == ROW_TIMER)
            timer_median = row->latency.p50_ns;
        for (int p = 0; p < PERCENTILES; p++) {
            double value = percentile_value(row, p);
            double y = scale_y(&s, value);
            fprintf(out,
                    "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\">"
                    "<title>",
                    x + p * BAR_WIDTH, y, BAR_WIDTH - 1, TOP + PLOT_HEIGHT - y,
                    percentile_colours[p]);
            xml_text(out, row->label);
            fprintf(out, ": %s %.0f ns</title></rect>\n", percentile_names[p], value);
        }
        double centre = x + PERCENTILES * BAR_WIDTH / 2;
        fprintf(out,
                "<text transform=\"translate(%.1f %.1f) rotate(-40)\" text-anchor=\"end\" "
                "font-size=\"11\">",
                centre, TOP + PLOT_HEIGHT + 14);
        xml_text(out, row->name);
        if (row->workers > 1)
            fprintf(out, " (%d %s)", row->workers,
                    row->workers_are_processes ? "processes" : "threads");
        fputs("</text>\n", out);
        x += group_width;
    }
    if (timer_median > 0) {
        double y = scale_y(&s, timer_median);
        fprintf(out,
                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#000000\" "
                "stroke-dasharray=\"5,3\"/>\n",
                LEFT, y, width - RIGHT, y);
    }
    fputs("</svg>\n", out);
    int failed = ferror(out);
    if (fclose(out) != 0 || failed)
        return -EIO;
    return 0;
}
