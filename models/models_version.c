/* models_version.c - placeholder object so the models library always has a member; the
 * model sources are listed in models/CMakeLists.txt as they land. */
#include "samrt_impl.h"

int samrt_models_count(void);
int samrt_models_count(void) { return SAMRT_MODEL_COUNT - 1; }
