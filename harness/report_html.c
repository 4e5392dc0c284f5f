/* report_html.c - inline-SVG bar and x-y charts and the page frame for `samrt report` (see
 * report_html.h). Value axes always start at 0 (bar lengths must be comparable) and end
 * at a "nice" value (1, 2, 2.5 or 5 times a power of ten) so tick labels stay short. Bars
 * carry an SVG <title>, which browsers show on hover without any script. The SVG has no
 * xmlns attribute: inline SVG in HTML does not need one, and the page then holds no URL
 * at all. Check the rendering with headless Chromium (docs/profiling.md). */
#include "report_html.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "thumbs.h"

/* Colour-blind-friendly, distinct at small sizes. */
static const char *const g_palette[] = {"#4477aa", "#ee6677", "#228833", "#ccbb44", "#66ccee",
                                        "#aa3377", "#bbbbbb", "#332288", "#dd7700", "#117733"};
#define N_PALETTE (sizeof g_palette / sizeof g_palette[0])
#define SAMRT_HTML_MAX(a, b) ((a) > (b) ? (a) : (b))

void samrt_html_text(FILE *f, const char *s) {
    for (; s && *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&#39;", f); break;
        default: fputc(*s, f);
        }
    }
}

void samrt_html_begin(FILE *f, const char *title) {
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>", f);
    samrt_html_text(f, title);
    fputs("</title>\n<style>\n"
          "body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;margin:24px;color:#222;"
          "max-width:1300px}\n"
          "h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 6px}\n"
          "p.meta,p.note{color:#555;font-size:13px;margin:4px 0}\n"
          "figure{margin:0 0 12px}svg{display:block;max-width:100%;height:auto}\n"
          "svg text{font-family:inherit;font-size:11px;fill:#333}\n"
          "table{border-collapse:collapse;font-size:12px;margin:6px 0 8px}\n"
          "th,td{border:1px solid #ddd;padding:3px 8px;text-align:right}\n"
          "th:first-child,td:first-child{text-align:left}th{background:#f4f4f4}\n"
          "td.absent{color:#999}td.t{text-align:left}\n"
          "div.thumbs{display:flex;flex-wrap:wrap;gap:8px}div.thumbs figure{margin:0;font-size:12px;color:#555}\n"
          "div.thumbs img{display:block;border:1px solid #ddd}\n"
          "p.warn{background:#fde8e8;border:2px solid #c62828;color:#7f0000;padding:8px 12px;font-size:15px}\n"
          "</style>\n</head>\n<body>\n<h1>",
          f);
    samrt_html_text(f, title);
    fputs("</h1>\n", f);
}

void samrt_html_end(FILE *f) { fputs("</body>\n</html>\n", f); }

/* A line of small print under a chart; nothing when note is NULL. */
static void note_line(FILE *f, const char *note) {
    if (!note) return;
    fputs("<p class=\"note\">", f);
    samrt_html_text(f, note);
    fputs("</p>\n", f);
}

/* <figure>, the chart's heading and the opening <svg> tag of a width x height drawing. */
static void figure_open(FILE *f, const char *title, double width, double height) {
    fputs("<figure>\n<h2>", f);
    samrt_html_text(f, title);
    fprintf(f, "</h2>\n<svg viewBox=\"0 0 %.0f %.0f\" width=\"%.0f\" height=\"%.0f\" role=\"img\" aria-label=\"",
            width, height, width, height);
    samrt_html_text(f, title);
    fputs("\">\n", f);
}

/* The smallest 1/2/2.5/5 x 10^k that is >= v (v > 0). */
static double nice_ceil(double v) {
    double p = pow(10.0, floor(log10(v)));
    static const double steps[] = {1, 2, 2.5, 5, 10};
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++)
        if (steps[i] * p >= v * (1 - 1e-12)) return steps[i] * p;
    return 10 * p;
}

static void fmt_value(char *buf, size_t len, double v) {
    if (isnan(v)) snprintf(buf, len, "-");
    else if (fabs(v) >= 100) snprintf(buf, len, "%.1f", v);
    else if (fabs(v) >= 1) snprintf(buf, len, "%.2f", v);
    else snprintf(buf, len, "%.3g", v);
}

/* The top of the value axis: the largest bar (stacked: the largest stack; with whiskers: the
 * highest whisker), rounded up to a nice number; 1 when nothing is positive. */
static double chart_ymax(const struct samrt_html_chart *c) {
    const size_t ng = c->n_groups, ns = c->n_series;
    double vmax = 0;
    for (size_t g = 0; g < ng; g++) {
        double sum = 0;
        for (size_t s = 0; s < ns; s++) {
            double v = c->values[g * ns + s];
            if (isnan(v)) continue;
            if (c->hi && !isnan(c->hi[g * ns + s]) && c->hi[g * ns + s] > v) v = c->hi[g * ns + s];
            sum += c->stacked ? c->values[g * ns + s] : 0;
            if (!c->stacked && v > vmax) vmax = v;
        }
        if (c->stacked && sum > vmax) vmax = sum;
    }
    return vmax > 0 ? nice_ceil(vmax) : 1;
}

/* The plotted numbers, as a table under the chart. */
static void chart_table(FILE *f, const struct samrt_html_chart *c) {
    const size_t ng = c->n_groups, ns = c->n_series;
    fputs("<table><tr><th></th>", f);
    for (size_t s = 0; s < ns; s++) {
        fputs("<th>", f);
        samrt_html_text(f, c->series[s]);
        fputs("</th>", f);
    }
    fputs("</tr>\n", f);
    for (size_t g = 0; g < ng; g++) {
        fputs("<tr><td>", f);
        samrt_html_text(f, c->groups[g]);
        fputs("</td>", f);
        for (size_t s = 0; s < ns; s++) {
            double v = c->values[g * ns + s];
            char lab[32];
            fmt_value(lab, sizeof lab, v);
            fprintf(f, "<td%s>%s</td>", isnan(v) ? " class=\"absent\"" : "", lab);
        }
        fputs("</tr>\n", f);
    }
    fputs("</table>\n", f);
}

/* The legend along the top: one swatch and name per series, wrapping at the plot's right edge;
 * with f NULL it only counts its rows. */
static int chart_legend(FILE *f, const char *const *names, size_t n, double left, double plot_w) {
    double lx = 0, ly = 8;
    int rows = 1;
    for (size_t s = 0; s < n; s++) {
        double w = 28 + 7.0 * (double)strlen(names[s]);
        if (lx > 0 && lx + w > plot_w) {
            lx = 0;
            ly += 18;
            rows++;
        }
        lx += w;
        if (!f) continue;
        fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"12\" fill=\"%s\"/>\n", left + lx - w,
                ly, g_palette[s % N_PALETTE]);
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">", left + lx - w + 16, ly + 10);
        samrt_html_text(f, names[s]);
        fputs("</text>\n", f);
    }
    return rows;
}

/* Decimals of the tick labels of a 5-interval axis up to vmax. */
static int tick_decimals(double vmax) {
    const double step = vmax / 5;
    int dec = step >= 1 ? 0 : (int)ceil(-log10(step) - 1e-9);
    if (dec > 6) dec = 6;
    if (step < 1 && fabs(step * pow(10, dec) - round(step * pow(10, dec))) > 1e-6) dec++;
    return dec;
}

/* Horizontal grid lines with their value labels left of the plot, and the rotated axis title. */
static void y_axis(FILE *f, double ymax, double left, double plot_w, double top, double plot_h, const char *label) {
    const int dec = tick_decimals(ymax);
    for (int i = 0; i <= 5; i++) {
        double v = ymax * i / 5.0, y = top + plot_h - v / ymax * plot_h;
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>\n", left, y,
                left + plot_w, y, i ? "#e5e5e5" : "#888");
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%.*f</text>\n", left - 6, y + 4, dec, v);
    }
    fprintf(f, "<text transform=\"translate(14 %.1f) rotate(-90)\" text-anchor=\"middle\">", top + plot_h / 2);
    samrt_html_text(f, label);
    fputs("</text>\n", f);
}

void samrt_html_chart(FILE *f, const struct samrt_html_chart *c) {
    const size_t ng = c->n_groups, ns = c->n_series;
    /* geometry, px. Group labels are drawn rotated by 30 degrees, so their length sets the
     * bottom margin (sin 30 = 0.5) and how far the first one reaches left (cos 30 = 0.87). */
    double label_px = 0;
    for (size_t g = 0; g < ng; g++)
        if (7.0 * (double)strlen(c->groups[g]) > label_px) label_px = 7.0 * (double)strlen(c->groups[g]);
    const double right = 16, plot_h = 300, gap = 28, min_plot_w = 560;
    double bar_w = c->stacked ? 44 : 20;
    double group_w = (c->stacked ? bar_w : bar_w * (double)ns) + gap;
    if (group_w * (double)ng < min_plot_w) {  /* few groups: widen them, bars up to 56 px */
        group_w = min_plot_w / (double)(ng ? ng : 1);
        bar_w = (group_w - gap) / (double)(c->stacked ? 1 : ns);
        if (bar_w > 56) bar_w = 56;
    }
    const double plot_w = group_w * (double)(ng ? ng : 1);
    const double bars_w = c->stacked ? bar_w : bar_w * (double)ns;
    double left = 0.87 * label_px - (group_w - bars_w) / 2 - bars_w / 2 + 12;
    if (left < 72) left = 72;
    const double bottom = 0.5 * label_px + 36;
    const double width = left + plot_w + right;
    const int legend_rows = chart_legend(NULL, c->series, ns, left, plot_w);  /* entries wrap at the right edge */
    const double top = 16 + 18.0 * legend_rows, height = top + plot_h + bottom;

    double ymax = chart_ymax(c);
#define Y(v) (top + plot_h - (v) / ymax * plot_h)

    figure_open(f, c->title, width, height);
    /* grid and y ticks: 5 intervals, as many decimals as the step needs */
    y_axis(f, ymax, left, plot_w, top, plot_h, c->y_label);
    chart_legend(f, c->series, ns, left, plot_w);
    /* bars */
    for (size_t g = 0; g < ng; g++) {
        double gx = left + group_w * (double)g + (group_w - bars_w) / 2, acc = 0;
        for (size_t s = 0; s < ns; s++) {
            double v = c->values[g * ns + s];
            double x = c->stacked ? gx : gx + bar_w * (double)s;
            char lab[32];
            fmt_value(lab, sizeof lab, v);
            if (isnan(v)) {
                if (!c->stacked)
                    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" fill=\"#999\">n/a</text>\n",
                            x + bar_w / 2, top + plot_h - 4);
                continue;
            }
            double y0 = Y(acc + v), h = v / ymax * plot_h;
            fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"><title>", x + 1,
                    y0, bar_w - 2, h < 0 ? 0 : h, g_palette[s % N_PALETTE]);
            samrt_html_text(f, c->groups[g]);
            fputs(" - ", f);
            samrt_html_text(f, c->series[s]);
            fprintf(f, ": %s</title></rect>\n", lab);
            if (c->lo && c->hi && !isnan(c->lo[g * ns + s]) && !isnan(c->hi[g * ns + s])) {
                double cx = x + bar_w / 2;
                fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#222\"/>\n", cx,
                        Y(c->lo[g * ns + s]), cx, Y(c->hi[g * ns + s]));
            }
            if (c->stacked) acc += v;
        }
        /* group label, rotated so long model / platform names fit */
        double cx = gx + bars_w / 2;
        fprintf(f, "<text transform=\"translate(%.1f %.1f) rotate(-30)\" text-anchor=\"end\">", cx,
                top + plot_h + 14);
        samrt_html_text(f, c->groups[g]);
        fputs("</text>\n", f);
    }
#undef Y
    fputs("</svg>\n", f);
    note_line(f, c->note);
    chart_table(f, c);
    fputs("</figure>\n", f);
}

/* The table under an x-y chart: one line per point. */
static void xy_table(FILE *f, const struct samrt_html_xy *c) {
    const char *const head[] = {"", c->label_name ? c->label_name : "point", c->x_label, c->y_label,
                                c->y_hi_name ? c->y_hi_name : "whisker"};
    fputs("<table><tr>", f);
    for (size_t i = 0; i < 5; i++) {
        fputs("<th>", f);
        samrt_html_text(f, head[i]);
        fputs("</th>", f);
    }
    fputs("</tr>\n", f);
    for (size_t s = 0; s < c->n_series; s++) {
        const struct samrt_html_xy_series *se = &c->series[s];
        for (size_t i = 0; i < se->n; i++) {
            fputs("<tr><td>", f);
            samrt_html_text(f, se->name);
            fputs("</td><td>", f);
            samrt_html_text(f, se->labels ? se->labels[i] : "");
            const double v[3] = {se->x[i], se->y[i], se->y_hi ? se->y_hi[i] : NAN};
            for (int k = 0; k < 3; k++) {
                char lab[32];
                fmt_value(lab, sizeof lab, v[k]);
                fprintf(f, "</td><td%s>%s", isnan(v[k]) ? " class=\"absent\"" : "", lab);
            }
            fputs("</td></tr>\n", f);
        }
    }
    fputs("</table>\n", f);
}

/* One series: the line through its points, then each point with its whisker and label. */
static void xy_series(FILE *f, const struct samrt_html_xy_series *se, const char *colour, double left, double top,
                      double plot_w, double plot_h, double xmax, double ymax) {
#define PX(v) (left + (v) / xmax * plot_w)
#define PY(v) (top + plot_h - (v) / ymax * plot_h)
    fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"", colour);
    for (size_t i = 0; i < se->n; i++)
        if (!isnan(se->x[i]) && !isnan(se->y[i])) fprintf(f, "%s%.1f,%.1f", i ? " " : "", PX(se->x[i]), PY(se->y[i]));
    fputs("\"/>\n", f);
    for (size_t i = 0; i < se->n; i++) {
        const double x = se->x[i], y = se->y[i], hi = se->y_hi ? se->y_hi[i] : NAN;
        if (isnan(x) || isnan(y)) continue;
        if (!isnan(hi))
            fprintf(f, "<path d=\"M%.1f %.1fV%.1fM%.1f %.1fh8\" stroke=\"%s\" fill=\"none\"/>\n", PX(x), PY(y),
                    PY(hi), PX(x) - 4, PY(hi), colour);
        char xs[32], ys[32], hs[32];
        fmt_value(xs, sizeof xs, x), fmt_value(ys, sizeof ys, y), fmt_value(hs, sizeof hs, hi);
        fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\"><title>", PX(x), PY(y), colour);
        samrt_html_text(f, se->name);
        fputs(" ", f);
        samrt_html_text(f, se->labels ? se->labels[i] : "");
        fprintf(f, ": x %s, y %s, whisker %s</title></circle>\n", xs, ys, hs);
        if (!se->labels) continue;
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">", PX(x) + 7, PY(y) - 6);
        samrt_html_text(f, se->labels[i]);
        fputs("</text>\n", f);
    }
#undef PX
#undef PY
}

void samrt_html_xy_chart(FILE *f, const struct samrt_html_xy *c) {
    const double left = 72, right = 40, plot_w = 640, plot_h = 300, bottom = 48;
    double xm = 0, ym = 0;
    for (size_t s = 0; s < c->n_series; s++)
        for (size_t i = 0; i < c->series[s].n; i++) {
            const struct samrt_html_xy_series *se = &c->series[s];
            const double hi = se->y_hi && !isnan(se->y_hi[i]) ? se->y_hi[i] : 0;
            if (!isnan(se->x[i]) && se->x[i] > xm) xm = se->x[i];
            if (!isnan(se->y[i]) && SAMRT_HTML_MAX(se->y[i], hi) > ym) ym = SAMRT_HTML_MAX(se->y[i], hi);
        }
    const double xmax = xm > 0 ? nice_ceil(xm) : 1, ymax = ym > 0 ? nice_ceil(ym) : 1;
    const char **names = malloc((c->n_series ? c->n_series : 1) * sizeof *names);
    if (!names) return;
    for (size_t s = 0; s < c->n_series; s++) names[s] = c->series[s].name;
    const double top = 16 + 18.0 * chart_legend(NULL, names, c->n_series, left, plot_w);
    const double width = left + plot_w + right, height = top + plot_h + bottom;
    figure_open(f, c->title, width, height);
    y_axis(f, ymax, left, plot_w, top, plot_h, c->y_label);
    const int xdec = tick_decimals(xmax);
    for (int i = 0; i <= 5; i++) {  /* x ticks under the plot */
        const double v = xmax * i / 5.0, x = left + v / xmax * plot_w;
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>\n", x, top, x,
                top + plot_h, i ? "#f0f0f0" : "#888");
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%.*f</text>\n", x, top + plot_h + 16, xdec,
                v);
    }
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", left + plot_w / 2, top + plot_h + 38);
    samrt_html_text(f, c->x_label);
    fputs("</text>\n", f);
    chart_legend(f, names, c->n_series, left, plot_w);
    for (size_t s = 0; s < c->n_series; s++)
        xy_series(f, &c->series[s], g_palette[s % N_PALETTE], left, top, plot_w, plot_h, xmax, ymax);
    fputs("</svg>\n", f);
    free(names);
    note_line(f, c->note);
    xy_table(f, c);
    fputs("</figure>\n", f);
}

void samrt_html_thumbnails(FILE *f, const char *title, const char *note, const struct samrt_thumbs *t) {
    if (!t || !t->n) return;
    fputs("<h2>", f);
    samrt_html_text(f, title);
    fputs("</h2>\n<div class=\"thumbs\">\n", f);
    for (int i = 0; i < t->n; i++) {
        fprintf(f, "<figure><img width=\"%d\" height=\"%d\" alt=\"", t->t[i].width, t->t[i].height);
        samrt_html_text(f, t->t[i].label);
        fputs("\" src=\"data:image/jpeg;base64,", f);
        samrt_base64_write(f, t->t[i].jpeg, t->t[i].size);
        fputs("\"><figcaption>", f);
        samrt_html_text(f, t->t[i].label);
        fputs("</figcaption></figure>\n", f);
    }
    fputs("</div>\n", f);
    note_line(f, note);
}
