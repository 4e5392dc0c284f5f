/* jpeg_nvjpeg.c - jpeg_gpu.h with nvJPEG (builds where cmake/FindNVJPEG.cmake found it): JPEG
 * frames decoded by the GPU's JPEG engine or by nvJPEG's CUDA backend straight into device
 * memory, with every buffer nvJPEG asks for counted by this file's allocators and sized at
 * setup. Kept to the JetPack 6 nvJPEG API (CUDA 12.6): nvjpegCreateEx with plain allocators,
 * the batched API for the hardware engine, the decoupled API (host, transfer, device phases
 * with attached pinned and device buffers) for the hybrid backend. */
#include "jpeg_gpu.h"

#include <cuda_runtime.h>
#include <nvjpeg.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

struct samrt_jpeg_gpu {
    enum samrt_jpeg_gpu_backend backend;
    int max_w, max_h;
    int sealed;
    nvjpegHandle_t h;
    nvjpegJpegState_t state;
    nvjpegJpegStream_t js;
    /* the hybrid backend's decoupled decoder */
    nvjpegJpegDecoder_t dec;
    nvjpegBufferPinned_t pinned;
    nvjpegBufferDevice_t device;
    nvjpegDecodeParams_t params;
};

/* ---- the allocators: every byte nvJPEG asks for, counted ----------------------------------------- */

static _Atomic uint64_t g_calls, g_late, g_dev_bytes, g_pin_bytes;
static _Thread_local const struct samrt_jpeg_gpu *tl_dec;  /* the decoder this thread is inside */

/* The live blocks and their sizes, so the frees count the bytes back (nvJPEG holds a few). */
#define MAX_BLOCKS 256
static struct {
    void *p;
    size_t n;
} g_blocks[MAX_BLOCKS];
static pthread_mutex_t g_blocks_mu = PTHREAD_MUTEX_INITIALIZER;

static void count_alloc(_Atomic uint64_t *bytes, void *p, size_t n) {
    atomic_fetch_add(&g_calls, 1);
    atomic_fetch_add(bytes, (uint64_t)n);
    if (tl_dec && tl_dec->sealed) atomic_fetch_add(&g_late, 1);
    pthread_mutex_lock(&g_blocks_mu);
    for (int k = 0; k < MAX_BLOCKS; k++)
        if (!g_blocks[k].p) {
            g_blocks[k].p = p;
            g_blocks[k].n = n;
            break;
        }
    pthread_mutex_unlock(&g_blocks_mu);
}

static void count_free(_Atomic uint64_t *bytes, void *p) {
    pthread_mutex_lock(&g_blocks_mu);
    for (int k = 0; k < MAX_BLOCKS; k++)
        if (g_blocks[k].p == p) {
            atomic_fetch_sub(bytes, (uint64_t)g_blocks[k].n);
            g_blocks[k].p = NULL;
            break;
        }
    pthread_mutex_unlock(&g_blocks_mu);
}

static int dev_malloc(void **p, size_t n) {
    const cudaError_t e = cudaMalloc(p, n);
    if (e == cudaSuccess) count_alloc(&g_dev_bytes, *p, n);
    return (int)e;
}

static int dev_free(void *p) {
    if (!p) return 0;
    count_free(&g_dev_bytes, p);
    return (int)cudaFree(p);
}

static int pinned_malloc(void **p, size_t n, unsigned int flags) {
    const cudaError_t e = cudaHostAlloc(p, n, flags);
    if (e == cudaSuccess) count_alloc(&g_pin_bytes, *p, n);
    return (int)e;
}

static int pinned_free(void *p) {
    if (!p) return 0;
    count_free(&g_pin_bytes, p);
    return (int)cudaFreeHost(p);
}

static nvjpegDevAllocator_t g_dev_alloc = {dev_malloc, dev_free};
static nvjpegPinnedAllocator_t g_pin_alloc = {pinned_malloc, pinned_free};

void samrt_jpeg_gpu_mem(struct samrt_jpeg_gpu_mem *out) {
    if (!out) return;
    out->device_bytes = atomic_load(&g_dev_bytes);
    out->pinned_bytes = atomic_load(&g_pin_bytes);
    out->calls = atomic_load(&g_calls);
    out->late_calls = atomic_load(&g_late);
}

/* ---- setup ----------------------------------------------------------------------------------------- */

const char *samrt_jpeg_gpu_backend_name(enum samrt_jpeg_gpu_backend b) {
    return b == SAMRT_JPEG_GPU_HARDWARE ? "nvJPEG hardware" : b == SAMRT_JPEG_GPU_HYBRID ? "nvJPEG GPU" : "none";
}

static int have_gpu(void) {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return n > 0;
}

/* A handle of one backend; 0 when the machine has none. */
static int try_handle(nvjpegBackend_t b, nvjpegHandle_t *h) {
    *h = NULL;
    if (nvjpegCreateEx(b, &g_dev_alloc, &g_pin_alloc, 0, h) == NVJPEG_STATUS_SUCCESS) return 1;
    *h = NULL;
    return 0;
}

int samrt_jpeg_gpu_in_build(void) { return 1; }

enum samrt_jpeg_gpu_backend samrt_jpeg_gpu_probe(void) {
    if (!have_gpu()) return SAMRT_JPEG_GPU_NONE;
    nvjpegHandle_t h;
    enum samrt_jpeg_gpu_backend b = SAMRT_JPEG_GPU_NONE;
    if (try_handle(NVJPEG_BACKEND_HARDWARE, &h)) b = SAMRT_JPEG_GPU_HARDWARE;
    else if (try_handle(NVJPEG_BACKEND_GPU_HYBRID, &h)) b = SAMRT_JPEG_GPU_HYBRID;
    if (h) nvjpegDestroy(h);
    return b;
}

#define NVJ_TRY(call)                                                                                  \
    do {                                                                                               \
        const nvjpegStatus_t s_ = (call);                                                              \
        SAMRT_CHECK(s_ == NVJPEG_STATUS_SUCCESS, SAMRT_E_CUDA, "nvJPEG: %s failed (status %d)", #call, \
                    (int)s_);                                                                          \
    } while (0)

/* The hardware engine: the batched API with a batch of one, its buffers allocated for the
 * largest frame at 4:4:4 (the largest chroma planes). */
static enum samrt_status setup_hardware(struct samrt_jpeg_gpu *d) {
    NVJ_TRY(nvjpegJpegStateCreate(d->h, &d->state));
    NVJ_TRY(nvjpegDecodeBatchedInitialize(d->h, d->state, 1, 1, NVJPEG_OUTPUT_RGBI));
    NVJ_TRY(nvjpegDecodeBatchedPreAllocate(d->h, d->state, 1, d->max_w, d->max_h, NVJPEG_CSS_444, NVJPEG_OUTPUT_RGBI));
    return SAMRT_OK;
}

/* The hybrid backend: a decoupled decoder with its pinned and device buffers attached. */
static enum samrt_status setup_hybrid(struct samrt_jpeg_gpu *d) {
    NVJ_TRY(nvjpegDecoderCreate(d->h, NVJPEG_BACKEND_GPU_HYBRID, &d->dec));
    NVJ_TRY(nvjpegDecoderStateCreate(d->h, d->dec, &d->state));
    NVJ_TRY(nvjpegBufferPinnedCreate(d->h, &g_pin_alloc, &d->pinned));
    NVJ_TRY(nvjpegBufferDeviceCreate(d->h, &g_dev_alloc, &d->device));
    NVJ_TRY(nvjpegStateAttachPinnedBuffer(d->state, d->pinned));
    NVJ_TRY(nvjpegStateAttachDeviceBuffer(d->state, d->device));
    NVJ_TRY(nvjpegDecodeParamsCreate(d->h, &d->params));
    NVJ_TRY(nvjpegDecodeParamsSetOutputFormat(d->params, NVJPEG_OUTPUT_RGBI));
    return SAMRT_OK;
}

enum samrt_status samrt_jpeg_gpu_create(int max_w, int max_h, enum samrt_jpeg_gpu_backend want,
                                        struct samrt_jpeg_gpu **out) {
    SAMRT_CHECK(out && max_w > 0 && max_h > 0, SAMRT_E_INVALID_ARG, "nvJPEG: bad arguments");
    *out = NULL;
    if (!have_gpu()) return SAMRT_E_UNSUPPORTED;
    struct samrt_jpeg_gpu *d = (struct samrt_jpeg_gpu *)calloc(1, sizeof *d);
    SAMRT_CHECK(d, SAMRT_E_HOST_MEMORY, "nvJPEG: out of host memory");
    d->max_w = max_w;
    d->max_h = max_h;
    if ((want == SAMRT_JPEG_GPU_ANY || want == SAMRT_JPEG_GPU_HARDWARE) && try_handle(NVJPEG_BACKEND_HARDWARE, &d->h))
        d->backend = SAMRT_JPEG_GPU_HARDWARE;
    else if ((want == SAMRT_JPEG_GPU_ANY || want == SAMRT_JPEG_GPU_HYBRID) &&
             try_handle(NVJPEG_BACKEND_GPU_HYBRID, &d->h))
        d->backend = SAMRT_JPEG_GPU_HYBRID;
    if (!d->h) {
        free(d);
        return SAMRT_E_UNSUPPORTED;
    }
    tl_dec = d;
    enum samrt_status st = d->backend == SAMRT_JPEG_GPU_HARDWARE ? setup_hardware(d) : setup_hybrid(d);
    if (st == SAMRT_OK && nvjpegJpegStreamCreate(d->h, &d->js) != NVJPEG_STATUS_SUCCESS) st = SAMRT_E_CUDA;
    tl_dec = NULL;
    if (st != SAMRT_OK) {
        samrt_jpeg_gpu_destroy(d);
        return st;
    }
    *out = d;
    return SAMRT_OK;
}

enum samrt_jpeg_gpu_backend samrt_jpeg_gpu_backend(const struct samrt_jpeg_gpu *d) {
    return d ? d->backend : SAMRT_JPEG_GPU_NONE;
}

void samrt_jpeg_gpu_seal(struct samrt_jpeg_gpu *d) {
    if (d) d->sealed = 1;
}

void samrt_jpeg_gpu_destroy(struct samrt_jpeg_gpu *d) {
    if (!d) return;
    if (d->js) nvjpegJpegStreamDestroy(d->js);
    if (d->params) nvjpegDecodeParamsDestroy(d->params);
    if (d->state) nvjpegJpegStateDestroy(d->state);
    if (d->pinned) nvjpegBufferPinnedDestroy(d->pinned);
    if (d->device) nvjpegBufferDeviceDestroy(d->device);
    if (d->dec) nvjpegDecoderDestroy(d->dec);
    if (d->h) nvjpegDestroy(d->h);
    free(d);
}

/* ---- per frame ------------------------------------------------------------------------------------- */

/* 1 when the last bytes hold the EOI marker (trailing zero padding allowed): nvJPEG decodes a
 * cut-off stream without a word, libjpeg reports it. */
static int ends_with_eoi(const uint8_t *p, size_t n) {
    while (n > 2 && p[n - 1] == 0) n--;
    return n >= 4 && p[n - 2] == 0xFF && p[n - 1] == 0xD9;
}

static enum samrt_status decode_hardware(struct samrt_jpeg_gpu *d, const uint8_t *p, size_t n, nvjpegImage_t *img,
                                         cudaStream_t s) {
    int unsupported = 1;
    if (nvjpegDecodeBatchedSupported(d->h, d->js, &unsupported) != NVJPEG_STATUS_SUCCESS || unsupported)
        return SAMRT_E_UNSUPPORTED;
    const unsigned char *data[1] = {p};
    const size_t len[1] = {n};
    const nvjpegStatus_t e = nvjpegDecodeBatched(d->h, d->state, data, len, img, s);
    if (e == NVJPEG_STATUS_JPEG_NOT_SUPPORTED) return SAMRT_E_UNSUPPORTED;
    if (e == NVJPEG_STATUS_BAD_JPEG) return SAMRT_E_FORMAT;  /* libjpeg-turbo says what is wrong */
    SAMRT_CHECK(e == NVJPEG_STATUS_SUCCESS, SAMRT_E_CUDA, "nvJPEG hardware decode failed (status %d)", (int)e);
    return SAMRT_OK;
}

static enum samrt_status decode_hybrid(struct samrt_jpeg_gpu *d, nvjpegImage_t *img, cudaStream_t s) {
    int unsupported = 1;
    if (nvjpegDecoderJpegSupported(d->dec, d->js, d->params, &unsupported) != NVJPEG_STATUS_SUCCESS || unsupported)
        return SAMRT_E_UNSUPPORTED;
    nvjpegStatus_t e = nvjpegDecodeJpegHost(d->h, d->dec, d->state, d->params, d->js);
    if (e == NVJPEG_STATUS_SUCCESS) e = nvjpegDecodeJpegTransferToDevice(d->h, d->dec, d->state, d->js, s);
    if (e == NVJPEG_STATUS_SUCCESS) e = nvjpegDecodeJpegDevice(d->h, d->dec, d->state, img, s);
    if (e == NVJPEG_STATUS_JPEG_NOT_SUPPORTED) return SAMRT_E_UNSUPPORTED;
    if (e == NVJPEG_STATUS_BAD_JPEG) return SAMRT_E_FORMAT;  /* libjpeg-turbo says what is wrong */
    SAMRT_CHECK(e == NVJPEG_STATUS_SUCCESS, SAMRT_E_CUDA, "nvJPEG decode failed (status %d)", (int)e);
    return SAMRT_OK;
}

enum samrt_status samrt_jpeg_gpu_decode(struct samrt_jpeg_gpu *d, const void *data, size_t size, uint8_t *dst,
                                        size_t pitch, samrt_stream *stream) {
    if (!d || !data || !dst) return SAMRT_E_INVALID_ARG;
    const uint8_t *p = (const uint8_t *)data;
    if (!ends_with_eoi(p, size)) return SAMRT_E_UNSUPPORTED;
    tl_dec = d;
    enum samrt_status st = SAMRT_E_UNSUPPORTED;
    unsigned int w = 0, h = 0, nc = 0;
    const nvjpegStatus_t e = nvjpegJpegStreamParse(d->h, p, size, 0, 0, d->js);
    if (e == NVJPEG_STATUS_SUCCESS && nvjpegJpegStreamGetFrameDimensions(d->js, &w, &h) == NVJPEG_STATUS_SUCCESS &&
        nvjpegJpegStreamGetComponentsNum(d->js, &nc) == NVJPEG_STATUS_SUCCESS && (nc == 1 || nc == 3) &&
        (int)w <= d->max_w && (int)h <= d->max_h && w > 0 && h > 0) {
        nvjpegImage_t img;
        memset(&img, 0, sizeof img);
        img.channel[0] = dst;
        img.pitch[0] = pitch;
        st = d->backend == SAMRT_JPEG_GPU_HARDWARE ? decode_hardware(d, p, size, &img, (cudaStream_t)stream)
                                                   : decode_hybrid(d, &img, (cudaStream_t)stream);
    }
    tl_dec = NULL;
    return st;
}
