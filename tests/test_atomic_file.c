/* test_atomic_file.c - harness/atomic_file.c, the one write-beside-then-rename path of every
 * file the harness writes: the target appears only complete (never while it is written), an
 * existing target survives an aborted write, a write that fails midway (the file size limit
 * reached) and a rename that fails, and no temporary file is left behind in any of them. The
 * image, checkpoint and profile writers are checked through it too.
 * Run: ctest -R test_atomic_file */
#include <dirent.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "atomic_file.h"
#include "check.h"
#include "image_io.h"
#include "profile.h"
#include "tool_test.h"

static void quiet_log(enum samrt_log_level level, const char *msg, void *user) {
    (void)level, (void)msg, (void)user;
}

/* Entries of the scratch directory whose name holds ".tmp.": temporaries left behind. */
static int n_temporaries(void) {
    DIR *d = opendir(tt_dir);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));) n += strstr(e->d_name, ".tmp.") != NULL;
    if (d) closedir(d);
    return n;
}

static int file_equals(const char *path, const char *want) {
    char *text = tt_read(path);
    const int same = text && !strcmp(text, want);
    free(text);
    return same;
}

static void test_complete_only(void) {
    const char *path = tt_path("fresh.txt");
    struct samrt_atomic_file af;
    CHECK_STATUS(samrt_atomic_open(&af, path), SAMRT_OK);
    fputs("first half, ", af.f);
    fflush(af.f);
    CHECK(tt_read(path) == NULL);  /* nothing under the real name while it is written */
    CHECK(n_temporaries() == 1);
    fputs("second half\n", af.f);
    CHECK_STATUS(samrt_atomic_commit(&af), SAMRT_OK);
    CHECK(af.f == NULL);
    CHECK(file_equals(path, "first half, second half\n"));
    CHECK(n_temporaries() == 0);
    /* over an existing file: the old contents until the commit, then all of the new */
    CHECK(tt_write(path, "old\n") == 0);
    CHECK_STATUS(samrt_atomic_open(&af, path), SAMRT_OK);
    fputs("new\n", af.f);
    fflush(af.f);
    CHECK(file_equals(path, "old\n"));
    CHECK_STATUS(samrt_atomic_commit(&af), SAMRT_OK);
    CHECK(file_equals(path, "new\n"));
    CHECK_STATUS(samrt_atomic_write(path, "whole\n", 6), SAMRT_OK);
    CHECK(file_equals(path, "whole\n"));
    CHECK_STATUS(samrt_atomic_write(tt_path("empty.txt"), NULL, 0), SAMRT_OK);
    CHECK(file_equals(tt_path("empty.txt"), ""));
    CHECK(n_temporaries() == 0);
}

static void test_abort_keeps_target(void) {
    const char *path = tt_path("keep.txt");
    CHECK(tt_write(path, "old contents\n") == 0);
    struct samrt_atomic_file af;
    CHECK_STATUS(samrt_atomic_open(&af, path), SAMRT_OK);
    fputs("half-written", af.f);
    samrt_atomic_abort(&af);
    samrt_atomic_abort(&af);  /* twice is fine */
    CHECK(file_equals(path, "old contents\n"));
    CHECK(n_temporaries() == 0);
    CHECK_STATUS(samrt_atomic_commit(&af), SAMRT_E_INVALID_ARG);  /* nothing open any more */
    CHECK(file_equals(path, "old contents\n"));
}

/* A write that fails midway: with the file size limit at 4 KiB, fwrite of 64 KiB fails (EFBIG,
 * SIGXFSZ ignored). The commit must see it and keep the old file. */
static void test_failed_write_keeps_target(void) {
    const char *path = tt_path("limit.bin");
    CHECK(tt_write(path, "old contents\n") == 0);
    struct rlimit old_lim, lim;
    CHECK(getrlimit(RLIMIT_FSIZE, &old_lim) == 0);
    void (*old_sig)(int) = signal(SIGXFSZ, SIG_IGN);
    lim = old_lim;
    lim.rlim_cur = 4096;
    CHECK(setrlimit(RLIMIT_FSIZE, &lim) == 0);
    static char big[65536];
    memset(big, 'x', sizeof big);
    CHECK_STATUS(samrt_atomic_write(path, big, sizeof big), SAMRT_E_IO);
    CHECK(file_equals(path, "old contents\n"));
    CHECK(n_temporaries() == 0);
    struct samrt_atomic_file af;  /* the same through stdio buffering, caught at the commit */
    CHECK_STATUS(samrt_atomic_open(&af, path), SAMRT_OK);
    for (int i = 0; i < 4; i++) fwrite(big, 1, sizeof big, af.f);
    CHECK_STATUS(samrt_atomic_commit(&af), SAMRT_E_IO);
    CHECK(file_equals(path, "old contents\n"));
    CHECK(n_temporaries() == 0);
    /* an image writer whose file outgrows the limit: the PNG encoder fails, the old file stays */
    const int w = 256, h = 256;
    uint8_t *rgb = malloc((size_t)w * h * 3);
    CHECK(rgb != NULL);
    uint32_t x = 2463534242u;  /* xorshift32 noise: incompressible, far over the limit as a PNG */
    for (size_t i = 0; rgb && i < (size_t)w * h * 3; i++) {
        x ^= x << 13, x ^= x >> 17, x ^= x << 5;
        rgb[i] = (uint8_t)(x >> 24);
    }
    if (rgb) CHECK(samrt_png_write_rgb8(path, rgb, w, h) != SAMRT_OK);
    free(rgb);
    CHECK(file_equals(path, "old contents\n"));
    CHECK(n_temporaries() == 0);
    CHECK(setrlimit(RLIMIT_FSIZE, &old_lim) == 0);
    signal(SIGXFSZ, old_sig);
}

/* The rename fails (the target is a non-empty folder): the folder is untouched and the
 * temporary removed; a folder that does not exist fails at open and creates nothing. */
static void test_failed_rename(void) {
    const char *dir = tt_path("a_dir.csv");
    CHECK(mkdir(dir, 0755) == 0);
    char inside[512];
    snprintf(inside, sizeof inside, "%s/inside", dir);
    CHECK(tt_write(inside, "x") == 0);
    CHECK_STATUS(samrt_atomic_write(dir, "data", 4), SAMRT_E_IO);
    CHECK(file_equals(inside, "x"));
    CHECK(n_temporaries() == 0);
    CHECK_STATUS(samrt_profile_write_csv(dir, NULL, 0), SAMRT_E_IO);
    uint8_t px[4] = {0, 255, 255, 0};
    CHECK_STATUS(samrt_png_write_gray8(dir, px, 2, 2), SAMRT_E_IO);
    CHECK(file_equals(inside, "x"));
    CHECK(n_temporaries() == 0);
    struct samrt_atomic_file af;
    CHECK_STATUS(samrt_atomic_open(&af, tt_path("no/such/dir/f.txt")), SAMRT_E_IO);
    CHECK(af.f == NULL);
    CHECK_STATUS(samrt_atomic_open(&af, ""), SAMRT_E_INVALID_ARG);
    CHECK_STATUS(samrt_atomic_open(&af, NULL), SAMRT_E_INVALID_ARG);
    CHECK(n_temporaries() == 0);
}

int main(void) {
    samrt_log_set(quiet_log, NULL, SAMRT_LOG_ERROR);  /* the errors provoked below stay quiet */
    if (tt_begin("test_atomic_file")) return 1;
    test_complete_only();
    test_abort_keeps_target();
    test_failed_write_keeps_target();
    test_failed_rename();
    return tt_end("test_atomic_file");
}
