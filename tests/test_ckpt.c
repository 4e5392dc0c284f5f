/* test_ckpt.c - the checkpoint reader on valid files: every layout in data/ckpt/good/ (torch.save
 * zip in its current and PyTorch 1.x forms, bare state_dict with nn.Parameter, pickle protocol 4
 * with zip64 directory fields, LONG1 integers, safetensors) holds the same 13 tensors, whose
 * values, shapes and conversions are checked here against hand-computed bits; plus in-memory
 * safetensors for JSON escapes and a seeded sweep of f32 -> bf16/f16 conversion.
 * Run: ctest -R test_ckpt (data: tests/data/ckpt, written by make_fixtures.py). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "ckpt.h"
#include "half.h"
#include "test_util.h"

static const char *const k_good[] = {"tiny_state.pt", "tiny_state_old.pt", "tiny_state_bare_param.pt",
                                     "tiny_state_proto4.pt", "tiny_state_long1.pt", "tiny_state.safetensors"};

/* The fixture's tensors in file order (make_fixtures.py: good_state_dict). */
static const struct {
    const char *name;
    enum samrt_dtype dtype;
    int n_dims;
    int64_t ne[3];
} k_tensors[] = {
    {"a", SAMRT_DTYPE_F32, 2, {2, 3}},
    {"image_encoder.trunk.blocks.0.attn.qkv.weight", SAMRT_DTYPE_F32, 2, {3, 2}},
    {"b", SAMRT_DTYPE_F16, 1, {4}},
    {"c", SAMRT_DTYPE_BF16, 2, {2, 2}},
    {"w", SAMRT_DTYPE_F32, 1, {8}},
    {"v", SAMRT_DTYPE_F32, 2, {2, 2}},
    {"n", SAMRT_DTYPE_I64, 0, {0}},
    {"i", SAMRT_DTYPE_I32, 1, {3}},
    {"big", SAMRT_DTYPE_I64, 1, {2}},
    {"u", SAMRT_DTYPE_U8, 3, {2, 2, 1}},
    {"s", SAMRT_DTYPE_F32, 0, {0}},
    {"z", SAMRT_DTYPE_F32, 2, {0, 4}},
    {"conv", SAMRT_DTYPE_F32, 1, {8}},
};
/* float elements: a 6 + qkv 6 + b 4 + c 4 + w 8 + v 4 + s 1 + z 0 + conv 8 */
static const uint64_t k_param_count = 41;

/* "conv" = 1+2^-8, 1+3*2^-8, 1+2^-11, 1+3*2^-11, 65520, -0, 2^-25, 3e38 rounded to nearest even:
 * ties go to the even neighbour, 65520 is f16's overflow tie (-> inf), 2^-25 its underflow tie. */
static const uint16_t k_conv_bf16[8] = {0x3F80, 0x3F82, 0x3F80, 0x3F80, 0x4780, 0x8000, 0x3300, 0x7F62};
static const uint16_t k_conv_f16[8] = {0x3C04, 0x3C0C, 0x3C00, 0x3C02, 0x7C00, 0x8000, 0x0000, 0x7C00};

static char g_dir[1024];

static const struct samrt_ckpt_tensor *get(const struct samrt_ckpt *ck, const char *name) {
    const struct samrt_ckpt_tensor *t = samrt_ckpt_find(ck, name);
    CHECK_MSG(t != NULL, "tensor %s not found", name);
    return t;
}

static void read_f32(const struct samrt_ckpt *ck, const char *name, const float *want, int n) {
    const struct samrt_ckpt_tensor *t = get(ck, name);
    if (!t) return;
    float got[16] = {0};
    CHECK_EQ_INT(t->nelements, n);
    CHECK_STATUS(samrt_ckpt_read(ck, t, SAMRT_DTYPE_F32, got, sizeof got), SAMRT_OK);
    for (int i = 0; i < n; i++) CHECK_MSG(got[i] == want[i], "%s[%d] = %g, want %g", name, i, got[i], want[i]);
}

static void read_u16(const struct samrt_ckpt *ck, const char *name, enum samrt_dtype dt, const uint16_t *want, int n) {
    const struct samrt_ckpt_tensor *t = get(ck, name);
    if (!t) return;
    uint16_t got[16] = {0};
    CHECK_STATUS(samrt_ckpt_read(ck, t, dt, got, (uint64_t)n * 2), SAMRT_OK);
    for (int i = 0; i < n; i++)
        CHECK_MSG(got[i] == want[i], "%s[%d] as %s = 0x%04x, want 0x%04x", name, i, samrt_dtype_name(dt), got[i], want[i]);
}

static void check_good(const char *file) {
    char path[1300];
    snprintf(path, sizeof path, "%s/good/%s", g_dir, file);
    struct samrt_ckpt ck;
    CHECK_STATUS(samrt_ckpt_open(path, &ck), SAMRT_OK);
    if (!ck.tensors) return;
    int is_st = strstr(file, ".safetensors") != NULL;
    CHECK_EQ_INT(ck.format, is_st ? SAMRT_CKPT_SAFETENSORS : SAMRT_CKPT_TORCH_ZIP);
    CHECK_EQ_INT(ck.owns_map, 1);
    CHECK_EQ_INT(ck.n_tensors, SAMRT_ARRAY_LEN(k_tensors));
    for (int k = 0; k < ck.n_tensors && k < (int)SAMRT_ARRAY_LEN(k_tensors); k++) {
        const struct samrt_ckpt_tensor *t = &ck.tensors[k];
        CHECK_MSG(!strcmp(t->name, k_tensors[k].name), "%s: tensor %d is %s, want %s", file, k, t->name, k_tensors[k].name);
        CHECK_EQ_INT(t->dtype, k_tensors[k].dtype);
        CHECK_EQ_INT(t->n_dims, k_tensors[k].n_dims);
        for (int d = 0; d < t->n_dims; d++) CHECK_EQ_INT(t->ne[d], k_tensors[k].ne[d]);
        CHECK_EQ_INT(t->nbytes, (uint64_t)t->nelements * samrt_dtype_size(t->dtype));
        CHECK(t->offset + t->nbytes <= ck.size);
    }
    CHECK_EQ_INT(samrt_ckpt_param_count(&ck), k_param_count);

    const float a[6] = {-1, -0.75f, -0.5f, -0.25f, 0, 0.25f};
    read_f32(&ck, "a", a, 6);
    read_u16(&ck, "a", SAMRT_DTYPE_BF16, (const uint16_t[]){0xBF80, 0xBF40, 0xBF00, 0xBE80, 0x0000, 0x3E80}, 6);
    read_u16(&ck, "a", SAMRT_DTYPE_F16, (const uint16_t[]){0xBC00, 0xBA00, 0xB800, 0xB400, 0x0000, 0x3400}, 6);
    read_f32(&ck, "image_encoder.trunk.blocks.0.attn.qkv.weight", (const float[]){100, 101, 102, 103, 104, 105}, 6);
    read_f32(&ck, "b", (const float[]){0.5f, -1.5f, 2.0f, 65504.0f}, 4);
    read_u16(&ck, "b", SAMRT_DTYPE_F16, (const uint16_t[]){0x3800, 0xBE00, 0x4000, 0x7BFF}, 4);
    read_u16(&ck, "b", SAMRT_DTYPE_BF16, (const uint16_t[]){0x3F00, 0xBFC0, 0x4000, 0x4780}, 4);
    read_f32(&ck, "c", (const float[]){1, -2, 0.5f, 3}, 4);
    read_u16(&ck, "c", SAMRT_DTYPE_F16, (const uint16_t[]){0x3C00, 0xC000, 0x3800, 0x4200}, 4);
    read_f32(&ck, "w", (const float[]){0, 1, 2, 3, 4, 5, 6, 7}, 8);
    read_f32(&ck, "v", (const float[]){4, 5, 6, 7}, 4); /* a view at storage offset 4 */
    read_f32(&ck, "s", (const float[]){3.5f}, 1);
    read_u16(&ck, "conv", SAMRT_DTYPE_BF16, k_conv_bf16, 8);
    read_u16(&ck, "conv", SAMRT_DTYPE_F16, k_conv_f16, 8);

    int64_t n64 = 0;
    int32_t i32[3] = {0};
    uint8_t u8[4] = {0};
    CHECK_STATUS(samrt_ckpt_read(&ck, get(&ck, "n"), SAMRT_DTYPE_I64, &n64, 8), SAMRT_OK);
    CHECK_EQ_INT(n64, 7);
    CHECK_STATUS(samrt_ckpt_read(&ck, get(&ck, "n"), SAMRT_DTYPE_I32, i32, 4), SAMRT_OK);
    CHECK_EQ_INT(i32[0], 7);
    CHECK_STATUS(samrt_ckpt_read(&ck, get(&ck, "i"), SAMRT_DTYPE_I32, i32, sizeof i32), SAMRT_OK);
    CHECK(i32[0] == -1 && i32[1] == 0 && i32[2] == 2147483647);
    CHECK_STATUS(samrt_ckpt_read(&ck, get(&ck, "big"), SAMRT_DTYPE_I32, i32, 8), SAMRT_OK);
    CHECK(i32[0] == 5 && i32[1] == -3);
    CHECK_STATUS(samrt_ckpt_read(&ck, get(&ck, "u"), SAMRT_DTYPE_U8, u8, 4), SAMRT_OK);
    CHECK(u8[0] == 0 && u8[1] == 1 && u8[2] == 254 && u8[3] == 255);
    const struct samrt_ckpt_tensor *z = get(&ck, "z");
    if (z) {
        CHECK(z->nelements == 0 && z->nbytes == 0);
        CHECK_STATUS(samrt_ckpt_read(&ck, z, SAMRT_DTYPE_BF16, NULL, 0), SAMRT_OK);
    }

    /* refusals */
    float small[2];
    CHECK_STATUS(samrt_ckpt_read(&ck, get(&ck, "a"), SAMRT_DTYPE_F32, small, sizeof small), SAMRT_E_INVALID_ARG);
    CHECK_STATUS(samrt_ckpt_read(&ck, get(&ck, "a"), SAMRT_DTYPE_U8, u8, 64), SAMRT_E_UNSUPPORTED);
    CHECK_STATUS(samrt_ckpt_read(&ck, get(&ck, "i"), SAMRT_DTYPE_F32, small, 64), SAMRT_E_UNSUPPORTED);
    CHECK_EQ_INT(samrt_ckpt_check_finite(&ck), 0);

    /* lookup */
    CHECK(samrt_ckpt_find(&ck, "nope") == NULL);
    CHECK(samrt_ckpt_find(&ck, "") == NULL);
    CHECK(samrt_ckpt_find(&ck, "image_encoder") == NULL);
    CHECK(samrt_ckpt_find(&ck, "image_encoder.trunk.blocks.0.attn.qkv.weight.") == NULL);
    CHECK(samrt_ckpt_find(&ck, NULL) == NULL);
    CHECK(samrt_ckpt_find(&ck, "conv") == &ck.tensors[12]);
    samrt_ckpt_close(&ck);
    CHECK(ck.tensors == NULL && ck.n_tensors == 0 && ck.data == NULL);
}

/* ---- in-memory safetensors ------------------------------------------------------------------ */

static uint8_t *make_st(const char *header, const void *data, size_t data_len, size_t *len) {
    size_t h = strlen(header), hp = (h + 7) / 8 * 8;
    uint8_t *b = malloc(8 + hp + data_len);
    for (int k = 0; k < 8; k++) b[k] = (uint8_t)((uint64_t)hp >> (8 * k));
    memcpy(b + 8, header, h);
    memset(b + 8 + h, ' ', hp - h);
    if (data_len) memcpy(b + 8 + hp, data, data_len);
    *len = 8 + hp + data_len;
    return b;
}

static void test_safetensors_mem(void) {
    /* escapes in names and metadata, blank space between tokens, a zero-size tensor */
    const char *hdr = "{ \"__metadata__\" : {\"k\\n\": \"v\\u0041\"},\n"
                      "  \"a\\\"b\\\\c\\u00e9\\ud83d\\ude00\" : {\"dtype\":\"F32\", \"shape\":[2], \"data_offsets\":[0,8]},"
                      "  \"e\": {\"shape\":[0,3],\"dtype\":\"BF16\",\"data_offsets\":[8,8]},"
                      "  \"x\": {\"data_offsets\":[8,16],\"dtype\":\"I64\",\"shape\":[]} }";
    const struct {
        float f[2];
        int64_t x;
    } data = {{1.5f, -2.0f}, (int64_t)1 << 40};
    size_t len;
    uint8_t *b = make_st(hdr, &data, sizeof data, &len);
    struct samrt_ckpt ck;
    CHECK_STATUS(samrt_ckpt_open_mem(b, len, &ck), SAMRT_OK);
    CHECK_EQ_INT(ck.n_tensors, 3);
    CHECK_EQ_INT(ck.owns_map, 0);
    const char *name = "a\"b\\c\xc3\xa9\xf0\x9f\x98\x80"; /* U+00E9, U+1F600 in UTF-8 */
    read_f32(&ck, name, (const float[]){1.5f, -2.0f}, 2);
    const struct samrt_ckpt_tensor *e = get(&ck, "e");
    if (e) CHECK(e->nelements == 0 && e->n_dims == 2 && e->ne[1] == 3);
    const struct samrt_ckpt_tensor *x = get(&ck, "x");
    int32_t i32;
    if (x) {
        CHECK(x->n_dims == 0 && x->nelements == 1);
        CHECK_STATUS(samrt_ckpt_read(&ck, x, SAMRT_DTYPE_I32, &i32, 4), SAMRT_E_UNSUPPORTED); /* 2^40 */
    }
    CHECK_EQ_INT(samrt_ckpt_param_count(&ck), 2);
    samrt_ckpt_close(&ck);
    free(b);

    /* an empty header is a valid file with no tensors */
    b = make_st("{}", NULL, 0, &len);
    CHECK_STATUS(samrt_ckpt_open_mem(b, len, &ck), SAMRT_OK);
    CHECK_EQ_INT(ck.n_tensors, 0);
    CHECK(samrt_ckpt_find(&ck, "a") == NULL);
    samrt_ckpt_close(&ck);
    free(b);
}

/* f32 -> bf16 / f16 through the reader equals the reference rounding, element by element. */
static void test_conversion_sweep(void) {
    enum { N = 4096 };
    float *v = malloc(N * sizeof *v);
    tu_fill_uniform(v, N, 1234, -70000.0f, 70000.0f);
    for (int i = 0; i < N / 4; i++) v[i] *= 1e-9f; /* reach the f16 subnormal range */
    char hdr[128];
    snprintf(hdr, sizeof hdr, "{\"t\":{\"dtype\":\"F32\",\"shape\":[%d],\"data_offsets\":[0,%d]}}", N, 4 * N);
    size_t len;
    uint8_t *b = make_st(hdr, v, N * sizeof *v, &len);
    struct samrt_ckpt ck;
    uint16_t *h = malloc(N * sizeof *h);
    CHECK_STATUS(samrt_ckpt_open_mem(b, len, &ck), SAMRT_OK);
    const struct samrt_ckpt_tensor *t = get(&ck, "t");
    int bad_bf16 = 0, bad_f16 = 0;
    if (t) {
        CHECK_STATUS(samrt_ckpt_read(&ck, t, SAMRT_DTYPE_BF16, h, N * 2), SAMRT_OK);
        for (int i = 0; i < N; i++) bad_bf16 += h[i] != samrt_f32_to_bf16(v[i]);
        CHECK_STATUS(samrt_ckpt_read(&ck, t, SAMRT_DTYPE_F16, h, N * 2), SAMRT_OK);
        for (int i = 0; i < N; i++) bad_f16 += h[i] != samrt_f32_to_f16(v[i]);
    }
    CHECK_EQ_INT(bad_bf16, 0);
    CHECK_EQ_INT(bad_f16, 0);
    samrt_ckpt_close(&ck);
    free(b);
    free(h);
    free(v);
}

static void quiet(enum samrt_log_level level, const char *msg, void *user) { (void)level, (void)msg, (void)user; }

int main(void) {
    const char *dir = getenv("SAMRT_TEST_DATA");
    if (!dir) return check_skip("test_ckpt", "SAMRT_TEST_DATA is not set (run through ctest)");
    snprintf(g_dir, sizeof g_dir, "%s/ckpt", dir);
    for (size_t k = 0; k < SAMRT_ARRAY_LEN(k_good); k++) check_good(k_good[k]);
    test_safetensors_mem();
    test_conversion_sweep();

    struct samrt_ckpt ck;
    char path[1300];
    samrt_log_set(quiet, NULL, SAMRT_LOG_ERROR); /* the failures below log by design */
    CHECK_STATUS(samrt_ckpt_open("/nonexistent/x.pt", &ck), SAMRT_E_IO);
    snprintf(path, sizeof path, "%s/good", g_dir);
    CHECK_STATUS(samrt_ckpt_open(path, &ck), SAMRT_E_IO); /* a directory */
    CHECK_STATUS(samrt_ckpt_open_mem(NULL, 0, &ck), SAMRT_E_FORMAT);
    CHECK_STATUS(samrt_ckpt_open(NULL, &ck), SAMRT_E_INVALID_ARG);
    samrt_log_set(NULL, NULL, SAMRT_LOG_INFO);
    return check_report("test_ckpt");
}
