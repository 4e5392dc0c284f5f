/* atomic_file.c - write beside the target, fflush + fsync, rename over it (atomic_file.h).
 * The one place the harness's writers get "the file is complete or absent" from: a crash or a
 * full disk mid-write never leaves a truncated profile, image, checkpoint or video under the
 * real name. Tested by tests/test_atomic_file.c. */
#include "atomic_file.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "samrt_impl.h"

enum samrt_status samrt_atomic_open(struct samrt_atomic_file *af, const char *path) {
    if (!af || !path || !*path) return SAMRT_E_INVALID_ARG;
    memset(af, 0, sizeof *af);
    SAMRT_CHECK(strlen(path) < sizeof af->path, SAMRT_E_INVALID_ARG, "path too long: %s", path);
    snprintf(af->path, sizeof af->path, "%s", path);
    snprintf(af->tmp, sizeof af->tmp, "%s.tmp.%ld", path, (long)getpid());
    /* 0666 less the umask, the mode fopen gives a new file */
    int fd = open(af->tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    SAMRT_CHECK(fd >= 0, SAMRT_E_IO, "cannot create %s: %s", af->tmp, strerror(errno));
    af->f = fdopen(fd, "wb");
    if (!af->f) {
        SAMRT_LOG_ERROR("fdopen %s: %s", af->tmp, strerror(errno));
        close(fd);
        unlink(af->tmp);
        return SAMRT_E_IO;
    }
    return SAMRT_OK;
}

void samrt_atomic_abort(struct samrt_atomic_file *af) {
    if (!af || !af->f) return;
    fclose(af->f);
    af->f = NULL;
    unlink(af->tmp);
}

enum samrt_status samrt_atomic_commit(struct samrt_atomic_file *af) {
    if (!af || !af->f) return SAMRT_E_INVALID_ARG;
    int err = 0;
    if (ferror(af->f) || fflush(af->f) != 0) err = errno ? errno : EIO;
    /* EINVAL/EROFS: the file system cannot sync (pipes, some FUSE mounts); data is flushed */
    if (!err && fsync(fileno(af->f)) != 0 && errno != EINVAL && errno != EROFS) err = errno;
    if (fclose(af->f) != 0 && !err) err = errno;
    af->f = NULL;
    if (!err && rename(af->tmp, af->path) != 0) err = errno;
    if (err) {
        unlink(af->tmp);
        SAMRT_LOG_ERROR("writing %s failed (%s); the previous file, if any, is unchanged", af->path,
                        strerror(err));
        return SAMRT_E_IO;
    }
    return SAMRT_OK;
}

enum samrt_status samrt_atomic_write(const char *path, const void *data, size_t size) {
    SAMRT_CHECK(path && (data || !size), SAMRT_E_INVALID_ARG, "samrt_atomic_write: NULL argument");
    struct samrt_atomic_file af;
    SAMRT_TRY(samrt_atomic_open(&af, path));
    if (size && fwrite(data, 1, size, af.f) != size) {
        SAMRT_LOG_ERROR("cannot write %s: %s", af.tmp, strerror(errno));
        samrt_atomic_abort(&af);
        return SAMRT_E_IO;
    }
    return samrt_atomic_commit(&af);
}
