/* test_image_io.c - harness/image_io: JPEG decode equals Pillow's pixels (hashes computed with
 * Pillow 13.0 / libjpeg-turbo by tests/data/images/make_images.py), JPEG and PNG round trips,
 * raw PNG samples for every gray/palette depth, Adam7, 16-bit, RGB/RGBA/gray+alpha, buffer
 * size checks, atomic writes, the DAVIS palette, and the malformed corpus in
 * tests/data/images/bad (every file refused with a status, never a crash). */
#include "image_io.h"

#include <dirent.h>

#include "check.h"
#include "data_util.h"

static char g_tmp[512];

static uint64_t fnv1a64(const uint8_t *p, size_t n) {
    uint64_t h = 0xCBF29CE484222325ull;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 0x100000001B3ull;
    return h;
}

static const char *data_dir(void) {
    const char *d = getenv("SAMRT_TEST_DATA");
    return d && *d ? d : "tests/data";
}

/* Decodes a JPEG file into a fresh buffer; NULL on failure. */
static uint8_t *decode_jpeg_file(const char *path, struct samrt_image_info *info, enum samrt_status *st) {
    size_t n = 0;
    uint8_t *data = du_read_file(path, &n);
    *st = SAMRT_E_IO;
    if (!data) return NULL;
    *st = samrt_jpeg_info(data, n, info);
    uint8_t *rgb = NULL;
    if (*st == SAMRT_OK) {
        rgb = (uint8_t *)malloc(samrt_image_nbytes(info));
        *st = samrt_jpeg_decode(data, n, rgb, samrt_image_nbytes(info), info);
        if (*st != SAMRT_OK) {
            free(rgb);
            rgb = NULL;
        }
    }
    free(data);
    return rgb;
}

/* The same bytes as np.array(Image.open(p).convert("RGB")) under Pillow. */
static void test_jpeg_matches_pillow(void) {
    static const struct {
        const char *name;
        uint64_t hash;
    } want[] = {
        {"q90_420.jpg", 0x1e90ceab427dfc84ull},       /* baseline 4:2:0: fancy upsampling at odd sizes */
        {"q85_422_prog.jpg", 0x7ce4a88fd505dc0eull},  /* progressive 4:2:2 */
        {"gray.jpg", 0x3cb27b0022d97ae0ull},          /* one component: R = G = B */
    };
    for (size_t i = 0; i < SAMRT_ARRAY_LEN(want); i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/images/ok/%s", data_dir(), want[i].name);
        struct samrt_image_info info;
        enum samrt_status st;
        uint8_t *rgb = decode_jpeg_file(path, &info, &st);
        CHECK_MSG(rgb, "%s: status %d", path, (int)st);
        if (!rgb) continue;
        CHECK_EQ_INT(info.width, 17);
        CHECK_EQ_INT(info.height, 13);
        CHECK_EQ_INT(info.channels, 3);
        uint64_t h = fnv1a64(rgb, samrt_image_nbytes(&info));
        CHECK_MSG(h == want[i].hash, "%s: pixels hash 0x%016llx, Pillow's 0x%016llx", want[i].name,
                  (unsigned long long)h, (unsigned long long)want[i].hash);
        free(rgb);
    }
}

static void test_jpeg_round_trip(void) {
    const int w = 37, h = 23;
    uint8_t *rgb = (uint8_t *)malloc((size_t)w * h * 3);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            uint8_t *p = rgb + ((size_t)y * w + x) * 3;
            p[0] = (uint8_t)(x * 6), p[1] = (uint8_t)(y * 10), p[2] = (uint8_t)(128 + (x - y) * 2);
        }
    char path[600];
    snprintf(path, sizeof path, "%s/rt.jpg", g_tmp);
    CHECK_STATUS(samrt_jpeg_write(path, rgb, w, h, 95), SAMRT_OK);
    struct samrt_image_info info;
    enum samrt_status st;
    uint8_t *back = decode_jpeg_file(path, &info, &st);
    CHECK(back != NULL);
    if (back) {
        CHECK_EQ_INT(info.width, w);
        CHECK_EQ_INT(info.height, h);
        double sum = 0;
        int worst = 0;
        for (size_t i = 0; i < (size_t)w * h * 3; i++) {
            int d = abs((int)back[i] - (int)rgb[i]);
            sum += d;
            worst = d > worst ? d : worst;
        }
        /* a smooth ramp at quality 95 stays within a few levels */
        CHECK_MSG(sum / (w * h * 3) < 2.0, "mean error %.3f", sum / (w * h * 3));
        CHECK_MSG(worst <= 24, "worst error %d", worst);
        free(back);
    }
    /* size query and short buffers */
    size_t n = 0;
    uint8_t *data = du_read_file(path, &n);
    CHECK(samrt_image_sniff(data, n) == SAMRT_IMAGE_JPEG);
    uint8_t small[16];
    CHECK_STATUS(samrt_jpeg_decode(data, n, small, sizeof small, &info), SAMRT_E_INVALID_ARG);
    CHECK_STATUS(samrt_jpeg_write(path, rgb, w, h, 0), SAMRT_E_INVALID_ARG);
    CHECK_STATUS(samrt_jpeg_write(path, rgb, 0, h, 90), SAMRT_E_FORMAT);
    free(data);
    free(rgb);
}

/* Writes samples with libpng directly, decodes with samrt, compares raw values. */
static void check_png_raw(const char *tag, int w, int h, int depth, int ctype, int interlace, const uint16_t *s) {
    char path[600];
    snprintf(path, sizeof path, "%s/%s.png", g_tmp, tag);
    CHECK_MSG(du_write_png_raw(path, w, h, depth, ctype, interlace, s) == 0, "%s: cannot write", tag);
    size_t n = 0;
    uint8_t *data = du_read_file(path, &n);
    struct samrt_image_info info;
    CHECK_STATUS(samrt_png_info(data, n, &info), SAMRT_OK);
    int ch = ctype == 0 || ctype == 3 ? 1 : ctype == 4 ? 2 : ctype == 2 ? 3 : 4;
    CHECK_EQ_INT(info.color_type, ctype);
    CHECK_EQ_INT(info.bit_depth, depth);
    CHECK_EQ_INT(info.channels, ch);
    CHECK_EQ_INT(info.bytes_per_sample, depth == 16 ? 2 : 1);
    CHECK_EQ_INT(info.interlaced, interlace);
    CHECK_EQ_INT(info.n_palette, ctype == 3 ? 1 << depth : 0);
    size_t nb = samrt_image_nbytes(&info);
    CHECK_EQ_INT(nb, (size_t)w * h * ch * (depth == 16 ? 2 : 1));
    uint8_t *out = (uint8_t *)malloc(nb);
    memset(out, 0xA5, nb);
    CHECK_STATUS(samrt_png_decode(data, n, out, nb, &info), SAMRT_OK);
    int bad = 0;
    for (size_t i = 0; i < (size_t)w * h * ch; i++) {
        unsigned v = depth == 16 ? ((uint16_t *)out)[i] : out[i];
        if (v != s[i] && bad++ < 3) fprintf(stderr, "  %s[%zu] = %u, want %u\n", tag, i, v, s[i]);
    }
    CHECK_MSG(bad == 0, "%s: %d samples differ", tag, bad);
    CHECK_STATUS(samrt_png_decode(data, n, out, nb - 1, &info), SAMRT_E_INVALID_ARG);
    free(out);
    free(data);
}

static void test_png_modes(void) {
    enum { W = 13, H = 7 };
    uint16_t s[W * H * 4];
    /* 0/1 patterns for the mask modes; the exact values must come back unscaled */
    for (int i = 0; i < W * H; i++) s[i] = (uint16_t)((i * 7 + i / W) % 3 == 0);
    check_png_raw("pal8", W, H, 8, 3, 0, s);
    check_png_raw("pal1", W, H, 1, 3, 0, s);
    check_png_raw("gray1", W, H, 1, 0, 0, s);
    check_png_raw("gray1_adam7", W, H, 1, 0, 1, s);
    for (int i = 0; i < W * H; i++) s[i] = (uint16_t)(i % 4);
    check_png_raw("gray2", W, H, 2, 0, 0, s);
    check_png_raw("pal2", W, H, 2, 3, 0, s);
    for (int i = 0; i < W * H; i++) s[i] = (uint16_t)(i % 16);
    check_png_raw("gray4_adam7", W, H, 4, 0, 1, s);
    for (int i = 0; i < W * H; i++) s[i] = (uint16_t)(i * 37 % 256);
    check_png_raw("gray8", W, H, 8, 0, 0, s);
    check_png_raw("gray8_adam7", W, H, 8, 0, 1, s);
    for (int i = 0; i < W * H; i++) s[i] = (uint16_t)(i * 7919 % 65536);
    check_png_raw("gray16", W, H, 16, 0, 0, s);
    check_png_raw("gray16_adam7", W, H, 16, 0, 1, s);
    for (int i = 0; i < W * H * 4; i++) s[i] = (uint16_t)(i * 13 % 256);
    check_png_raw("rgb8", W, H, 8, 2, 0, s);
    check_png_raw("rgba8", W, H, 8, 6, 0, s);
    check_png_raw("ga8", W, H, 8, 4, 1, s);
    for (int i = 0; i < W * H * 3; i++) s[i] = (uint16_t)(i * 4099 % 65536);
    check_png_raw("rgb16", W, H, 16, 2, 0, s);
}

static void test_png_write(void) {
    enum { W = 9, H = 5 };
    uint8_t px[W * H], pal[256 * 3];
    for (int i = 0; i < W * H; i++) px[i] = (uint8_t)(i % 2);
    samrt_palette_davis(pal);
    char path[600];
    snprintf(path, sizeof path, "%s/w_pal.png", g_tmp);
    CHECK_STATUS(samrt_png_write_palette8(path, px, W, H, pal, 2), SAMRT_OK);
    size_t n = 0;
    uint8_t *data = du_read_file(path, &n), out[W * H];
    struct samrt_image_info info;
    CHECK_STATUS(samrt_png_decode(data, n, out, sizeof out, &info), SAMRT_OK);
    CHECK_EQ_INT(info.color_type, SAMRT_PNG_PALETTE);
    CHECK_EQ_INT(info.n_palette, 2);
    CHECK(memcmp(out, px, sizeof px) == 0);
    free(data);
    /* an index outside the palette is refused before anything is written */
    snprintf(path, sizeof path, "%s/w_bad.png", g_tmp);
    px[3] = 2;
    CHECK_STATUS(samrt_png_write_palette8(path, px, W, H, pal, 2), SAMRT_E_INVALID_ARG);
    CHECK(access(path, F_OK) != 0);

    for (int i = 0; i < W * H; i++) px[i] = (uint8_t)(i * 29);
    snprintf(path, sizeof path, "%s/w_gray.png", g_tmp);
    CHECK_STATUS(samrt_png_write_gray8(path, px, W, H), SAMRT_OK);
    data = du_read_file(path, &n);
    CHECK_STATUS(samrt_png_decode(data, n, out, sizeof out, &info), SAMRT_OK);
    CHECK_EQ_INT(info.color_type, SAMRT_PNG_GRAY);
    CHECK_EQ_INT(info.bit_depth, 8);
    CHECK(memcmp(out, px, sizeof px) == 0);
    free(data);
}

static void test_files(void) {
    char a[600], b[600], dir_missing[600];
    snprintf(a, sizeof a, "%s/a.bin", g_tmp);
    snprintf(b, sizeof b, "%s/b.bin", g_tmp);
    snprintf(dir_missing, sizeof dir_missing, "%s/no/such/dir/x.bin", g_tmp);
    uint8_t big[10000];
    for (size_t i = 0; i < sizeof big; i++) big[i] = (uint8_t)(i * 31);
    CHECK_STATUS(samrt_file_write(a, "hello", 5), SAMRT_OK);
    CHECK_STATUS(samrt_file_write(b, big, sizeof big), SAMRT_OK);
    uint8_t *buf = NULL;
    size_t cap = 0, size = 0;
    CHECK_STATUS(samrt_file_read(a, &buf, &cap, &size), SAMRT_OK);
    CHECK_EQ_INT(size, 5);
    CHECK(memcmp(buf, "hello", 5) == 0);
    size_t cap1 = cap;
    CHECK_STATUS(samrt_file_read(b, &buf, &cap, &size), SAMRT_OK);
    CHECK_EQ_INT(size, sizeof big);
    CHECK(cap >= sizeof big && cap >= cap1);
    CHECK(memcmp(buf, big, sizeof big) == 0);
    uint8_t *keep = buf;
    CHECK_STATUS(samrt_file_read(a, &buf, &cap, &size), SAMRT_OK);
    CHECK(buf == keep);   /* a smaller file reuses the buffer */
    CHECK_STATUS(samrt_file_read(dir_missing, &buf, &cap, &size), SAMRT_E_IO);
    CHECK_STATUS(samrt_file_read(g_tmp, &buf, &cap, &size), SAMRT_E_IO);   /* a folder */
    free(buf);
    /* overwrite replaces; a failed write leaves no temporary behind */
    CHECK_STATUS(samrt_file_write(a, "bye", 3), SAMRT_OK);
    size_t n = 0;
    uint8_t *d = du_read_file(a, &n);
    CHECK(n == 3 && d && memcmp(d, "bye", 3) == 0);
    free(d);
    CHECK_STATUS(samrt_file_write(dir_missing, "x", 1), SAMRT_E_IO);
    DIR *dd = opendir(g_tmp);
    int tmps = 0;
    for (struct dirent *e; dd && (e = readdir(dd));) tmps += strstr(e->d_name, ".tmp.") != NULL;
    if (dd) closedir(dd);
    CHECK_EQ_INT(tmps, 0);
}

static void test_palette(void) {
    uint8_t p[256 * 3];
    samrt_palette_davis(p);
    static const uint8_t want[][4] = {{0, 0, 0, 0},     {1, 128, 0, 0},   {2, 0, 128, 0},     {3, 128, 128, 0},
                                      {4, 0, 0, 128},   {8, 64, 0, 0},    {255, 224, 224, 192}};
    for (size_t i = 0; i < SAMRT_ARRAY_LEN(want); i++) {
        const uint8_t *e = p + 3 * want[i][0];
        CHECK_MSG(e[0] == want[i][1] && e[1] == want[i][2] && e[2] == want[i][3], "entry %d = (%d,%d,%d)", want[i][0],
                  e[0], e[1], e[2]);
    }
}

/* The libraries `samrt check` reports (moved here from test_platform with the report). */
static void test_versions(void) {
    struct samrt_image_lib_versions v;
    samrt_image_io_versions(&v);
    CHECK(v.libjpeg >= 62);
    CHECK(strncmp(v.libpng, "1.6", 3) == 0);
}

/* Every file of the corpus is refused by info or decode, through both decoders. */
static void test_bad_corpus(void) {
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/images/bad", data_dir());
    DIR *d = opendir(dir);
    CHECK_MSG(d != NULL, "cannot open %s", dir);
    if (!d) return;
    int n_files = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.') continue;
        char path[1400];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        size_t n = 0;
        uint8_t *data = du_read_file(path, &n);
        if (!data) continue;
        n_files++;
        int accepted = 0;
        for (int which = 0; which < 2; which++) {
            struct samrt_image_info info;
            enum samrt_status st = which ? samrt_png_info(data, n, &info) : samrt_jpeg_info(data, n, &info);
            if (st != SAMRT_OK) continue;
            size_t nb = samrt_image_nbytes(&info);
            uint8_t *out = (uint8_t *)malloc(nb ? nb : 1);
            st = which ? samrt_png_decode(data, n, out, nb, &info) : samrt_jpeg_decode(data, n, out, nb, &info);
            accepted |= st == SAMRT_OK;
            free(out);
        }
        CHECK_MSG(!accepted, "%s was decoded without an error", e->d_name);
        free(data);
    }
    closedir(d);
    CHECK_MSG(n_files >= 15, "only %d files in %s", n_files, dir);
}

/* Truncating a good file anywhere is an error, never a crash or a silently gray image. */
static void test_truncation_sweep(void) {
    char path[1024];
    snprintf(path, sizeof path, "%s/images/ok/q85_422_prog.jpg", data_dir());
    size_t n = 0;
    uint8_t *data = du_read_file(path, &n);
    CHECK(data != NULL);
    if (!data) return;
    uint8_t rgb[17 * 13 * 3];
    struct samrt_image_info info;
    int ok_short = 0;
    /* cut before the last two bytes: the EOI marker may go missing without losing pixels */
    for (size_t cut = 0; cut + 2 < n; cut++) ok_short += samrt_jpeg_decode(data, cut, rgb, sizeof rgb, &info) == SAMRT_OK;
    CHECK_EQ_INT(ok_short, 0);
    free(data);

    enum { W = 16, H = 16 };
    uint16_t s[W * H];
    for (int i = 0; i < W * H; i++) s[i] = (uint16_t)((i * 97) % 256);
    snprintf(path, sizeof path, "%s/trunc.png", g_tmp);
    CHECK(du_write_png_raw(path, W, H, 8, 0, 1, s) == 0);
    data = du_read_file(path, &n);
    uint8_t out[W * H];
    ok_short = 0;
    for (size_t cut = 0; cut < n; cut++) ok_short += samrt_png_decode(data, cut, out, sizeof out, &info) == SAMRT_OK;
    CHECK_EQ_INT(ok_short, 0);
    CHECK_STATUS(samrt_png_decode(data, n, out, sizeof out, &info), SAMRT_OK);
    free(data);
}

int main(void) {
    if (du_tmpdir("image_io", g_tmp, sizeof g_tmp) != 0) return check_skip("test_image_io", "no temp folder");
    test_jpeg_matches_pillow();
    test_jpeg_round_trip();
    test_png_modes();
    test_png_write();
    test_files();
    test_palette();
    test_versions();
    du_quiet(1);   /* the corpus logs one error per file */
    test_bad_corpus();
    test_truncation_sweep();
    du_quiet(0);
    du_rmtree(g_tmp);
    return check_report("test_image_io");
}
