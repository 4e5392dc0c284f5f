/* test_frame_decode_alloc.c - the frame streamer allocates nothing after open: every host
 * malloc-family call of the process (and, in CUDA builds, every cudaMalloc*) is intercepted by
 * the linker (--wrap, tests/alloc_intercept.c), and a folder of 40 frames is streamed through
 * 1 and 4 decode threads with a slow and a fast consumer. The ring, the decode threads' file
 * buffers (sized from the folder's largest file) and the slots are planned at open; what the
 * streamer reports as planned (info.host_bytes) is what open allocated for them. libjpeg-turbo's
 * own per-image pools live inside the shared library, which the interception does not see
 * (image_io.h says so). */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "alloc_intercept.h"
#include "check.h"
#include "frame_decode_util.h"
#include "frame_stream.h"

#define W 160
#define H 96
#define N_FRAMES 40

static void run(const char *dir, int threads, int slow) {
    const struct samrt_frame_source src = {dir, 4, 0, 0};
    const struct samrt_frame_decode dec = {threads, 0, 0};
    struct alloc_counts a0, a1, a2;
    alloc_counts_get(&a0);
    samrt_frame_stream_t fs = NULL;
    CHECK_STATUS(samrt_frame_stream_open_decode(&src, &dec, &fs), SAMRT_OK);
    alloc_counts_get(&a1);
    struct samrt_frame_stream_info info;
    samrt_frame_stream_info(fs, &info);
    CHECK_EQ_INT(info.decode_threads, threads);
    /* the ring and the file buffers are among what open allocated */
    CHECK(info.host_bytes >= (uint64_t)W * H * 3 * 5 && a1.host_bytes - a0.host_bytes >= info.host_bytes);
    struct samrt_frame f;
    int n = 0;
    uint64_t sum = 0;
    while (samrt_frame_stream_next(fs, &f) == SAMRT_OK && f.rgb) {
        sum += f.rgb[(size_t)n % (W * H * 3)];
        if (slow) usleep(2000);
        samrt_frame_stream_release(fs, &f);
        n++;
    }
    alloc_counts_get(&a2);
    CHECK_EQ_INT(n, N_FRAMES);
    const uint64_t host = a2.host_calls - a1.host_calls, dev = a2.dev_calls - a1.dev_calls + a2.pinned_calls -
                                                                a1.pinned_calls + a2.managed_calls - a1.managed_calls;
    printf("%d thread(s), %s consumer: open allocated %llu bytes in %llu calls (planned %llu); %d frames then: %llu "
           "host, %llu device allocations (checksum %llu)\n",
           threads, slow ? "slow" : "fast", (unsigned long long)(a1.host_bytes - a0.host_bytes),
           (unsigned long long)(a1.host_calls - a0.host_calls), (unsigned long long)info.host_bytes, n,
           (unsigned long long)host, (unsigned long long)dev, (unsigned long long)sum);
    CHECK_MSG(host == 0 && dev == 0, "%llu host and %llu device allocations while streaming", (unsigned long long)host,
              (unsigned long long)dev);
    samrt_frame_stream_close(fs);
}

int main(void) {
    char root[700], dir[800];
    if (du_tmpdir("fdalloc", root, sizeof root) != 0) return check_skip("test_frame_decode_alloc", "no temp folder");
    snprintf(dir, sizeof dir, "%s/frames", root);
    if (fd_make_folder(dir, W, H, N_FRAMES, 85) != 0) return check_skip("test_frame_decode_alloc", "cannot write frames");
    run(dir, 1, 0);
    run(dir, 4, 0);
    run(dir, 4, 1);
    run(dir, 1, 1);
    du_rmtree(root);
    return check_report("test_frame_decode_alloc");
}
