/* samrt_impl.h - internal helpers shared by core/, kernels/, platform/, models/ and tools/:
 * logging, the SAMRT_CHECK / SAMRT_TRY / SAMRT_DASSERT family, alignment, CUDA error
 * wrapping. Not installed.
 *
 * Setup code validates everything with SAMRT_CHECK (logs file:line and returns a status).
 * Hot-path code asserts facts proven at setup with SAMRT_DASSERT (compiled out unless
 * SAMRT_DEBUG) and returns bare statuses for per-run data.
 */
#ifndef SAMRT_IMPL_H
#define SAMRT_IMPL_H

#include "samrt.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SAMRT_ALIGN 256u
#define SAMRT_PAD(x, a) (((x) + (a) - 1) / (a) * (a))
#define SAMRT_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define SAMRT_MIN(a, b) ((a) < (b) ? (a) : (b))
#define SAMRT_MAX(a, b) ((a) > (b) ? (a) : (b))

#if defined(__GNUC__) || defined(__clang__)
#define SAMRT_PRINTF(fmt_idx, arg_idx) __attribute__((format(printf, fmt_idx, arg_idx)))
#else
#define SAMRT_PRINTF(fmt_idx, arg_idx)
#endif

/* ---- logging -------------------------------------------------------------------------- */

void samrt_log(enum samrt_log_level level, const char *fmt, ...) SAMRT_PRINTF(2, 3);
void samrt_logv(enum samrt_log_level level, const char *fmt, va_list ap);

#ifdef SAMRT_STRIP_LOG_STRINGS
#define SAMRT_LOG_ERROR(...) ((void)0)
#define SAMRT_LOG_WARN(...) ((void)0)
#define SAMRT_LOG_INFO(...) ((void)0)
#define SAMRT_LOG_DEBUG(...) ((void)0)
#else
#define SAMRT_LOG_ERROR(...) samrt_log(SAMRT_LOG_ERROR, __VA_ARGS__)
#define SAMRT_LOG_WARN(...) samrt_log(SAMRT_LOG_WARN, __VA_ARGS__)
#define SAMRT_LOG_INFO(...) samrt_log(SAMRT_LOG_INFO, __VA_ARGS__)
#define SAMRT_LOG_DEBUG(...) samrt_log(SAMRT_LOG_DEBUG, __VA_ARGS__)
#endif

/* ---- checks --------------------------------------------------------------------------- */

/* Setup-time validation: log what failed and where, then return `status`. */
#define SAMRT_CHECK(cond, status, ...)                                                     \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            SAMRT_LOG_ERROR(__VA_ARGS__);                                                  \
            return (status);                                                               \
        }                                                                                  \
    } while (0)

/* Pass a failing status up unchanged. */
#define SAMRT_TRY(expr)                                                                    \
    do {                                                                                   \
        enum samrt_status samrt_try_st_ = (expr);                                          \
        if (samrt_try_st_ != SAMRT_OK) return samrt_try_st_;                               \
    } while (0)

/* Facts proven at setup; compiled out in release builds. */
#ifdef SAMRT_DEBUG
#include <assert.h>
#define SAMRT_DASSERT(cond) assert(cond)
#else
#define SAMRT_DASSERT(cond) ((void)0)
#endif

/* ---- CUDA ------------------------------------------------------------------------------- */

#ifdef SAMRT_HAVE_CUDA
/* Logs the call, file, line and CUDA's message, then returns SAMRT_E_CUDA. */
#define SAMRT_CUDA_TRY(call)                                                               \
    do {                                                                                   \
        cudaError_t samrt_cu_err_ = (call);                                                \
        if (samrt_cu_err_ != cudaSuccess) {                                                \
            SAMRT_LOG_ERROR("%s:%d: %s failed: %s", __FILE__, __LINE__, #call,            \
                            cudaGetErrorString(samrt_cu_err_));                            \
            return SAMRT_E_CUDA;                                                           \
        }                                                                                  \
    } while (0)
#endif

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_IMPL_H */
