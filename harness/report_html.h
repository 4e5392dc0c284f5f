/* report_html.h - the pieces of the self-contained HTML report (`samrt report`): a page
 * frame with inline CSS, escaped text, bar charts drawn as inline SVG (grouped or stacked)
 * and x-y charts (labelled points joined per series, with whiskers: the object sweep's
 * throughput against latency), each with a table of the plotted numbers under it. No
 * script, no external resource: the page opens from a mail attachment or a CI artifact as
 * it is.
 *
 * Usage:
 *   samrt_html_begin(f, "samrt profile report");
 *   struct samrt_html_chart c = {.title = "FPS", .y_label = "FPS (higher is better)",
 *       .n_groups = 2, .groups = models, .n_series = 1, .series = platforms, .values = v};
 *   samrt_html_chart(f, &c);      // exactly one <svg> per call
 *   samrt_html_end(f);
 */
#ifndef SAMRT_HARNESS_REPORT_HTML_H
#define SAMRT_HARNESS_REPORT_HTML_H

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

struct samrt_html_chart {
    const char *title;
    const char *y_label;           /* axis title, with the unit */
    size_t n_groups;               /* positions on the x axis */
    const char *const *groups;     /* (n_groups) labels */
    size_t n_series;               /* bars per group (grouped) or segments (stacked) */
    const char *const *series;     /* (n_series) legend labels */
    const double *values;          /* (n_groups, n_series) group-major; NaN: no bar */
    const double *lo, *hi;         /* (n_groups, n_series) whisker ends, or NULL */
    int stacked;                   /* 1: segments of one bar per group */
    const char *note;              /* a line under the chart, or NULL */
};

void samrt_html_begin(FILE *f, const char *title);
void samrt_html_end(FILE *f);
/* Writes s with & < > " ' escaped. */
void samrt_html_text(FILE *f, const char *s);
/* One <figure>: heading, the <svg>, the note, and a table of the values. */
void samrt_html_chart(FILE *f, const struct samrt_html_chart *c);

/* One series of an x-y chart: points joined in the given order. */
struct samrt_html_xy_series {
    const char *name;              /* legend label */
    size_t n;                      /* points */
    const double *x, *y;           /* (n); a point with a NaN coordinate is not drawn */
    const double *y_hi;            /* (n) whisker tops above y (NaN: none), or NULL */
    const char *const *labels;     /* (n) text beside each point, or NULL */
};

struct samrt_html_xy {
    const char *title;
    const char *x_label, *y_label; /* axis titles, with the units */
    size_t n_series;
    const struct samrt_html_xy_series *series;
    const char *label_name;        /* table header of the point labels, e.g. "objects" */
    const char *y_hi_name;         /* table header of the whisker tops, e.g. "ms/frame p95" */
    const char *note;              /* a line under the chart, or NULL */
};

/* One <figure>: heading, the <svg> (both axes from 0, points with whiskers and labels), the
 * note, and a table of the points. */
void samrt_html_xy_chart(FILE *f, const struct samrt_html_xy *c);

struct samrt_thumbs;   /* thumbs.h */
/* One <figure> of thumbnails (a run's overlays) in a row, each an inline JPEG (a data: URI,
 * so the page still needs nothing outside itself) with its label, under a heading. */
void samrt_html_thumbnails(FILE *f, const char *title, const char *note, const struct samrt_thumbs *t);

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_HARNESS_REPORT_HTML_H */
