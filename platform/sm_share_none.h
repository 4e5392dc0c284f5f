/* sm_share_none.h - the SM-share hooks of platform.h where green contexts do not exist (a CPU
 * build, or a CUDA toolkit before 12.4): the query says why, open refuses with
 * SAMRT_E_UNSUPPORTED and the reason, and the rest act on the NULL share open never returns.
 * Included once, by that platform's body, after it defines
 *   static void sm_share_none_why(char *why, size_t len);
 * (the reason, one sentence). */
#ifndef SAMRT_PLATFORM_SM_SHARE_NONE_H
#define SAMRT_PLATFORM_SM_SHARE_NONE_H

#include <stdio.h>
#include <string.h>

#include "platform.h"

enum samrt_status samrt_platform_sm_share_query(int ordinal, int sm_limit, struct samrt_sm_share_info *out) {
    (void)ordinal, (void)sm_limit;
    memset(out, 0, sizeof *out);
    sm_share_none_why(out->why, sizeof out->why);
    return SAMRT_OK;
}

enum samrt_status samrt_platform_sm_share_open(int ordinal, int sm_limit, samrt_sm_share **out) {
    (void)ordinal;
    *out = NULL;
    char why[192];
    sm_share_none_why(why, sizeof why);
    SAMRT_CHECK(0, SAMRT_E_UNSUPPORTED, "sm_limit %d: %s", sm_limit, why);
}

samrt_sm_share *samrt_platform_sm_share_retain(samrt_sm_share *s) { return s; }

void samrt_platform_sm_share_release(samrt_sm_share *s) { (void)s; }

int samrt_platform_sm_share_sms(const samrt_sm_share *s) {
    (void)s;
    return 0;
}

enum samrt_status samrt_platform_sm_share_enter(samrt_sm_share *s) {
    (void)s;
    return SAMRT_OK;
}

enum samrt_status samrt_platform_sm_share_leave(samrt_sm_share *s) {
    (void)s;
    return SAMRT_OK;
}

#endif /* SAMRT_PLATFORM_SM_SHARE_NONE_H */
