/* consumer.c - a downstream program that sees only the installed samrt.h and libsamrt.a.
 * It checks a few answers that follow from the API's documentation (not from the code), so
 * a header or archive that installed but does not work still fails. Prints
 * "samrt consumer: ok" on success; exit 1 otherwise. */
#include <samrt.h>
#include <stdio.h>
#include <string.h>

int main(void) {
    enum samrt_dtype dt;
    int bad = 0;
    if (samrt_dtype_parse("f16", &dt) != SAMRT_OK || samrt_dtype_size(dt) != 2) bad = 1;
    if (samrt_dtype_parse("no-such-dtype", &dt) == SAMRT_OK) bad = 1;
    if (strcmp(samrt_status_str(SAMRT_OK), "") == 0) bad = 1;
    int n_dev = -1;  /* 0 on a machine without a GPU: not an error */
    if (samrt_device_count(&n_dev) != SAMRT_OK || n_dev < 0) bad = 1;
    if (!samrt_platform_profile_by_name("cpu")) bad = 1;
    printf("samrt consumer: %s (samrt %d.%d.%d)\n", bad ? "FAILED" : "ok", SAMRT_VERSION_MAJOR,
           SAMRT_VERSION_MINOR, SAMRT_VERSION_PATCH);
    return bad;
}
