/* ckpt_pickle.c - a restricted pickle VM for the data.pkl that torch.save writes for
 * {"model": state_dict}. It runs the pickle on a small object model (none, bool, int, float,
 * str, tuple, list, dict, an allow-listed global, a storage reference, a tensor) and never
 * calls anything: the only "callables" are the allow-listed globals, and REDUCE on them builds
 * a dict (collections.OrderedDict) or a tensor record (torch._utils._rebuild_tensor_v2,
 * _rebuild_parameter). Every other GLOBAL (os.system, builtins.eval, ...) and every opcode
 * outside the accepted set fails with SAMRT_E_FORBIDDEN, naming it.
 *
 * What torch.save emits (protocol 2, checked against torch/serialization.py and
 * Tensor.__reduce_ex__): PROTO, EMPTY_DICT, BINUNICODE keys, BINPUT/BINGET memo traffic,
 * GLOBAL, EMPTY_TUPLE + REDUCE for OrderedDict(), MARK/TUPLE(1,2,3), BININT/BININT1/BININT2
 * (LONG1 past 2^31), NEWFALSE, BINPERSID with ('storage', torch.FloatStorage, key, location,
 * numel), SETITEM(S), BUILD for the state_dict's _metadata, STOP. Protocol 4 framing
 * (FRAME, SHORT_BINUNICODE, MEMOIZE, STACK_GLOBAL) is accepted too, for re-saved files.
 *
 * Memory stays proportional to the input: every object comes from one opcode, memo indices
 * may not run ahead of the objects created, and the stack and MARK depth are bounded. Objects
 * are never walked recursively (a list may contain itself), so hostile nesting cannot blow the
 * C stack. Tests: tests/test_ckpt_corpus.c, tests/fuzz/fuzz_ckpt.c. */
#include "ckpt_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_STACK (1 << 16)
#define MAX_MARKS 64
#define MAX_OBJECTS (1 << 22)
#define MAX_GLOBAL_NAME 128

enum kind { K_NONE, K_BOOL, K_INT, K_FLOAT, K_STR, K_TUPLE, K_LIST, K_DICT, K_GLOBAL, K_STORAGE, K_TENSOR };
static const char *const kind_names[] = {"None",   "a bool",  "an int",  "a float",   "a str",   "a tuple",
                                         "a list", "a dict",  "a global", "a storage", "a tensor"};

enum global_id {
    G_ORDERED_DICT,
    G_REBUILD_TENSOR_V2,
    G_REBUILD_PARAMETER,
    G_STORAGE_F32,
    G_STORAGE_F16,
    G_STORAGE_BF16,
    G_STORAGE_I64,
    G_STORAGE_I32,
    G_STORAGE_U8,
};
static const struct {
    const char *module, *name;
    enum samrt_dtype dtype; /* storages only */
} g_allowed[] = {
    {"collections", "OrderedDict", SAMRT_DTYPE_F32},
    {"torch._utils", "_rebuild_tensor_v2", SAMRT_DTYPE_F32},
    {"torch._utils", "_rebuild_parameter", SAMRT_DTYPE_F32},
    {"torch", "FloatStorage", SAMRT_DTYPE_F32},
    {"torch", "HalfStorage", SAMRT_DTYPE_F16},
    {"torch", "BFloat16Storage", SAMRT_DTYPE_BF16},
    {"torch", "LongStorage", SAMRT_DTYPE_I64},
    {"torch", "IntStorage", SAMRT_DTYPE_I32},
    {"torch", "ByteStorage", SAMRT_DTYPE_U8},
};

struct obj {
    uint8_t kind;
    uint8_t global;        /* K_GLOBAL: enum global_id; K_STORAGE: enum samrt_dtype */
    int64_t i;             /* int / bool value; str length; K_TENSOR: index into vm.tensors;
                              K_STORAGE: numel */
    const uint8_t *s;      /* K_STR, K_STORAGE (key): bytes inside the pickle */
    uint32_t s_len;        /* K_STORAGE: key length */
    int32_t *items;        /* tuple / list items; dict: key, value, key, value, ... */
    int32_t n_items, cap;
};

struct tensor_rec {
    int32_t storage;       /* object index of a K_STORAGE */
    int64_t offset;
    int n_dims;
    int64_t ne[SAMRT_CKPT_MAX_DIMS];
    int64_t nelements;
};

struct vm {
    const uint8_t *p, *end, *start;
    struct obj *objs;
    int32_t n_objs, cap_objs;
    int32_t *stack;
    int32_t sp;
    int32_t marks[MAX_MARKS];
    int n_marks;
    int32_t *memo;         /* object index or -1 */
    int64_t n_memo;        /* slots allocated */
    int64_t memo_len;      /* slots set (what MEMOIZE numbers the next one) */
    struct tensor_rec *tensors;
    int32_t n_tensors, cap_tensors;
};

/* ---- errors ------------------------------------------------------------------------------ */

#define FAIL(st, ...)                                                                            \
    do {                                                                                         \
        SAMRT_LOG_ERROR(__VA_ARGS__);                                                            \
        return (st);                                                                             \
    } while (0)

static long pos(const struct vm *vm) { return (long)(vm->p - vm->start); }

/* Names of the opcodes a state_dict never needs, for the refusal message. */
static const struct {
    uint8_t op;
    const char *name;
} refused_ops[] = {
    {'0', "POP"}, {'1', "POP_MARK"}, {'2', "DUP"}, {'F', "FLOAT"}, {'I', "INT"}, {'L', "LONG"},
    {'P', "PERSID"}, {'S', "STRING"}, {'T', "BINSTRING"}, {'U', "SHORT_BINSTRING"}, {'V', "UNICODE"},
    {'d', "DICT"}, {'g', "GET"}, {'i', "INST"}, {'l', "LIST"}, {'o', "OBJ"}, {'p', "PUT"}, {'B', "BINBYTES"},
    {'C', "SHORT_BINBYTES"}, {0x81, "NEWOBJ"}, {0x82, "EXT1"}, {0x83, "EXT2"}, {0x84, "EXT4"},
    {0x8b, "LONG4"}, {0x8d, "BINUNICODE8"}, {0x8e, "BINBYTES8"}, {0x8f, "EMPTY_SET"}, {0x90, "ADDITEMS"},
    {0x91, "FROZENSET"}, {0x92, "NEWOBJ_EX"}, {0x96, "BYTEARRAY8"}, {0x97, "NEXT_BUFFER"},
    {0x98, "READONLY_BUFFER"}
};

static const char *opcode_name(uint8_t op) {
    for (size_t i = 0; i < sizeof refused_ops / sizeof refused_ops[0]; i++)
        if (refused_ops[i].op == op) return refused_ops[i].name;
    return "unknown";
}

/* ---- objects, stack, memo ------------------------------------------------------------------ */

static enum samrt_status new_obj(struct vm *vm, uint8_t kind, int32_t *idx) {
    if (vm->n_objs == vm->cap_objs) {
        if (vm->cap_objs >= MAX_OBJECTS)
            FAIL(SAMRT_E_FORMAT, "pickle: more than %d objects; not a state_dict", MAX_OBJECTS);
        int32_t cap = vm->cap_objs ? vm->cap_objs * 2 : 1024;
        struct obj *o = realloc(vm->objs, (size_t)cap * sizeof *o);
        if (!o) FAIL(SAMRT_E_HOST_MEMORY, "pickle: out of memory");
        vm->objs = o;
        vm->cap_objs = cap;
    }
    struct obj *o = &vm->objs[vm->n_objs];
    memset(o, 0, sizeof *o);
    o->kind = kind;
    *idx = vm->n_objs++;
    return SAMRT_OK;
}

static enum samrt_status push(struct vm *vm, int32_t idx) {
    if (vm->sp >= MAX_STACK) FAIL(SAMRT_E_FORMAT, "pickle: stack deeper than %d at byte %ld", MAX_STACK, pos(vm));
    vm->stack[vm->sp++] = idx;
    return SAMRT_OK;
}

static enum samrt_status push_new(struct vm *vm, uint8_t kind, int64_t i, int32_t *idx_out) {
    int32_t idx;
    SAMRT_TRY(new_obj(vm, kind, &idx));
    vm->objs[idx].i = i;
    if (idx_out) *idx_out = idx;
    return push(vm, idx);
}

/* Items above the current MARK stay on the stack; pop them with pop_mark. */
static int top_mark(const struct vm *vm) { return vm->n_marks ? vm->marks[vm->n_marks - 1] : -1; }

static enum samrt_status pop(struct vm *vm, int32_t *idx) {
    if (vm->sp <= 0 || vm->sp <= top_mark(vm))
        FAIL(SAMRT_E_FORMAT, "pickle: stack underflow at byte %ld (corrupt data.pkl)", pos(vm));
    *idx = vm->stack[--vm->sp];
    return SAMRT_OK;
}

static enum samrt_status peek(struct vm *vm, int32_t *idx) {
    if (vm->sp <= 0 || vm->sp <= top_mark(vm))
        FAIL(SAMRT_E_FORMAT, "pickle: stack underflow at byte %ld (corrupt data.pkl)", pos(vm));
    *idx = vm->stack[vm->sp - 1];
    return SAMRT_OK;
}

/* The stack index of the innermost MARK, which is then dropped. */
static enum samrt_status pop_mark(struct vm *vm, int32_t *base) {
    if (vm->n_marks == 0) FAIL(SAMRT_E_FORMAT, "pickle: no MARK before byte %ld (corrupt data.pkl)", pos(vm));
    *base = vm->marks[--vm->n_marks];
    return SAMRT_OK;
}

static enum samrt_status add_item(struct vm *vm, int32_t container, int32_t item) {
    struct obj *o = &vm->objs[container];
    if (o->n_items == o->cap) {
        int32_t cap = o->cap ? o->cap * 2 : 4;
        if (cap > MAX_OBJECTS * 2) FAIL(SAMRT_E_FORMAT, "pickle: container too large");
        int32_t *it = realloc(o->items, (size_t)cap * sizeof *it);
        if (!it) FAIL(SAMRT_E_HOST_MEMORY, "pickle: out of memory");
        o->items = it;
        o->cap = cap;
    }
    o->items[o->n_items++] = item;
    return SAMRT_OK;
}

/* A tuple from stack[base..sp). */
static enum samrt_status make_tuple(struct vm *vm, int32_t base) {
    int32_t t;
    SAMRT_TRY(new_obj(vm, K_TUPLE, &t));
    for (int32_t k = base; k < vm->sp; k++) SAMRT_TRY(add_item(vm, t, vm->stack[k]));
    vm->sp = base;
    return push(vm, t);
}

static enum samrt_status memo_put(struct vm *vm, uint64_t key) {
    int32_t top;
    SAMRT_TRY(peek(vm, &top));
    /* Picklers number memo slots 0, 1, 2, ...: a key can never exceed the objects made so far. */
    if (key > (uint64_t)vm->n_objs + 16)
        FAIL(SAMRT_E_FORMAT, "pickle: memo key %llu at byte %ld is out of range", (unsigned long long)key, pos(vm));
    if ((int64_t)key >= vm->n_memo) {
        int64_t n = SAMRT_MAX((int64_t)key + 1, vm->n_memo * 2);
        int32_t *m = realloc(vm->memo, (size_t)n * sizeof *m);
        if (!m) FAIL(SAMRT_E_HOST_MEMORY, "pickle: out of memory");
        for (int64_t k = vm->n_memo; k < n; k++) m[k] = -1;
        vm->memo = m;
        vm->n_memo = n;
    }
    if (vm->memo[key] < 0) vm->memo_len++;
    vm->memo[key] = top;
    return SAMRT_OK;
}

static enum samrt_status memo_get(struct vm *vm, uint64_t key) {
    if ((int64_t)key >= vm->n_memo || key > INT32_MAX || vm->memo[key] < 0)
        FAIL(SAMRT_E_FORMAT, "pickle: memo key %llu read at byte %ld was never stored", (unsigned long long)key, pos(vm));
    return push(vm, vm->memo[key]);
}

/* ---- reading the opcode stream ---------------------------------------------------------------- */

static enum samrt_status need(struct vm *vm, uint64_t n) {
    if ((uint64_t)(vm->end - vm->p) < n)
        FAIL(SAMRT_E_FORMAT, "pickle: truncated at byte %ld (an argument needs %llu more bytes)", pos(vm),
             (unsigned long long)n);
    return SAMRT_OK;
}

static uint64_t le(const uint8_t *p, int n) {
    uint64_t v = 0;
    for (int k = n - 1; k >= 0; k--) v = (v << 8) | p[k];
    return v;
}

/* GLOBAL's "module\nname\n" line: at most MAX_GLOBAL_NAME bytes before the newline. */
static enum samrt_status read_line(struct vm *vm, const uint8_t **s, size_t *len) {
    const uint8_t *nl = memchr(vm->p, '\n', (size_t)SAMRT_MIN((uint64_t)(vm->end - vm->p), MAX_GLOBAL_NAME + 1));
    if (!nl) FAIL(SAMRT_E_FORMAT, "pickle: GLOBAL at byte %ld has no newline-terminated name", pos(vm));
    *s = vm->p;
    *len = (size_t)(nl - vm->p);
    vm->p = nl + 1;
    return SAMRT_OK;
}

static int str_is(const uint8_t *s, size_t len, const char *lit) {
    return strlen(lit) == len && memcmp(s, lit, len) == 0;
}

static enum samrt_status push_global(struct vm *vm, const uint8_t *mod, size_t mod_len,
                                     const uint8_t *name, size_t name_len) {
    for (size_t k = 0; k < SAMRT_ARRAY_LEN(g_allowed); k++) {
        if (str_is(mod, mod_len, g_allowed[k].module) && str_is(name, name_len, g_allowed[k].name)) {
            int32_t idx;
            SAMRT_TRY(push_new(vm, K_GLOBAL, 0, &idx));
            vm->objs[idx].global = (uint8_t)k;
            return SAMRT_OK;
        }
    }
    char m[MAX_GLOBAL_NAME + 8], n[MAX_GLOBAL_NAME + 8];
    samrt_ckpt_printable(mod, mod_len, m, sizeof m);
    samrt_ckpt_printable(name, name_len, n, sizeof n);
    if (str_is(mod, mod_len, "torch") && name_len > 7 && !memcmp(name + name_len - 7, "Storage", 7))
        FAIL(SAMRT_E_UNSUPPORTED, "pickle: storage type torch.%s is not supported "
             "(f32, f16, bf16, i64, i32 and u8 are)", n);
    FAIL(SAMRT_E_FORBIDDEN, "pickle: global %s.%s at byte %ld is not allowed: a state_dict needs only "
         "collections.OrderedDict, torch._utils._rebuild_tensor_v2/_rebuild_parameter and "
         "torch.*Storage; refusing to load", m, n, pos(vm));
}

/* ---- REDUCE / BINPERSID / BUILD ---------------------------------------------------------------- */

static int is_int(const struct vm *vm, int32_t idx) {
    return vm->objs[idx].kind == K_INT || vm->objs[idx].kind == K_BOOL;
}

/* A tuple of ints -> dims (shape or stride). */
static enum samrt_status int_tuple(struct vm *vm, int32_t idx, int64_t *v, int *n, const char *what) {
    const struct obj *o = &vm->objs[idx];
    if (o->kind != K_TUPLE) FAIL(SAMRT_E_FORMAT, "pickle: tensor %s is %s, not a tuple", what, kind_names[o->kind]);
    if (o->n_items > SAMRT_CKPT_MAX_DIMS)
        FAIL(SAMRT_E_UNSUPPORTED, "pickle: tensor with %d dims (at most %d supported)", o->n_items, SAMRT_CKPT_MAX_DIMS);
    for (int32_t k = 0; k < o->n_items; k++) {
        if (!is_int(vm, o->items[k])) FAIL(SAMRT_E_FORMAT, "pickle: tensor %s holds a non-integer", what);
        v[k] = vm->objs[o->items[k]].i;
        if (v[k] < 0) FAIL(SAMRT_E_FORMAT, "pickle: tensor %s holds %lld", what, (long long)v[k]);
    }
    *n = o->n_items;
    return SAMRT_OK;
}

/* _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad, backward_hooks[, metadata]) */
static enum samrt_status rebuild_tensor(struct vm *vm, const struct obj *args, int32_t *out) {
    if (args->n_items != 6 && args->n_items != 7)
        FAIL(SAMRT_E_FORMAT, "pickle: _rebuild_tensor_v2 with %d arguments (6 or 7 expected)", args->n_items);
    const int32_t *a = args->items;
    if (vm->objs[a[0]].kind != K_STORAGE)
        FAIL(SAMRT_E_FORMAT, "pickle: _rebuild_tensor_v2's first argument is %s, not a storage",
             kind_names[vm->objs[a[0]].kind]);
    if (!is_int(vm, a[1]) || vm->objs[a[1]].i < 0) FAIL(SAMRT_E_FORMAT, "pickle: bad tensor storage offset");
    struct tensor_rec t = {.storage = a[0], .offset = vm->objs[a[1]].i};
    int64_t stride[SAMRT_CKPT_MAX_DIMS];
    int n_stride = 0;
    SAMRT_TRY(int_tuple(vm, a[2], t.ne, &t.n_dims, "shape"));
    SAMRT_TRY(int_tuple(vm, a[3], stride, &n_stride, "stride"));
    if (n_stride != t.n_dims) FAIL(SAMRT_E_FORMAT, "pickle: tensor shape has %d dims, stride %d", t.n_dims, n_stride);
    t.nelements = samrt_ckpt_shape_numel(t.ne, t.n_dims);
    if (t.nelements < 0) FAIL(SAMRT_E_FORMAT, "pickle: tensor shape too large");
    /* contiguous: size-1 dims may carry any stride, as in PyTorch's is_contiguous() */
    int64_t expect = 1;
    for (int d = t.n_dims - 1; d >= 0 && t.nelements > 0; d--) {
        if (t.ne[d] != 1 && stride[d] != expect)
            FAIL(SAMRT_E_UNSUPPORTED, "pickle: a tensor of %d dims has stride %lld in dim %d where a contiguous "
                 "one has %lld; save contiguous tensors (state_dict() of a module always is)",
                 t.n_dims, (long long)stride[d], d, (long long)expect);
        expect *= t.ne[d];
    }
    const struct obj *st = &vm->objs[t.storage];
    if (t.offset > st->i || t.nelements > st->i - t.offset)
        FAIL(SAMRT_E_FORMAT, "pickle: tensor at storage offset %lld with %lld elements runs past its "
             "storage of %lld elements", (long long)t.offset, (long long)t.nelements, (long long)st->i);
    if (vm->n_tensors == vm->cap_tensors) {
        int32_t cap = vm->cap_tensors ? vm->cap_tensors * 2 : 256;
        struct tensor_rec *r = realloc(vm->tensors, (size_t)cap * sizeof *r);
        if (!r) FAIL(SAMRT_E_HOST_MEMORY, "pickle: out of memory");
        vm->tensors = r;
        vm->cap_tensors = cap;
    }
    vm->tensors[vm->n_tensors] = t;
    SAMRT_TRY(new_obj(vm, K_TENSOR, out));
    vm->objs[*out].i = vm->n_tensors++;
    return SAMRT_OK;
}

static enum samrt_status op_reduce(struct vm *vm) {
    int32_t args_i, fn_i, res = -1;
    SAMRT_TRY(pop(vm, &args_i));
    SAMRT_TRY(pop(vm, &fn_i));
    const struct obj *fn = &vm->objs[fn_i], *args = &vm->objs[args_i];
    if (fn->kind != K_GLOBAL) FAIL(SAMRT_E_FORMAT, "pickle: REDUCE at byte %ld calls %s", pos(vm), kind_names[fn->kind]);
    if (args->kind != K_TUPLE) FAIL(SAMRT_E_FORMAT, "pickle: REDUCE at byte %ld with %s as arguments", pos(vm), kind_names[args->kind]);
    switch (fn->global) {
    case G_ORDERED_DICT:
        if (args->n_items != 0) FAIL(SAMRT_E_FORMAT, "pickle: OrderedDict() with arguments");
        SAMRT_TRY(new_obj(vm, K_DICT, &res));
        break;
    case G_REBUILD_TENSOR_V2:
        SAMRT_TRY(rebuild_tensor(vm, args, &res));
        break;
    case G_REBUILD_PARAMETER: /* (data, requires_grad, backward_hooks): the tensor itself */
        if (args->n_items != 3 || vm->objs[args->items[0]].kind != K_TENSOR)
            FAIL(SAMRT_E_FORMAT, "pickle: _rebuild_parameter needs (tensor, requires_grad, hooks)");
        res = args->items[0];
        break;
    default:
        FAIL(SAMRT_E_FORMAT, "pickle: REDUCE at byte %ld calls torch.%s, which is not a function",
             pos(vm), g_allowed[fn->global].name);
    }
    return push(vm, res);
}

/* persistent id ('storage', torch.<T>Storage, key, location, numel) */
static enum samrt_status op_binpersid(struct vm *vm) {
    int32_t pid_i, idx;
    SAMRT_TRY(pop(vm, &pid_i));
    const struct obj *pid = &vm->objs[pid_i];
    if (pid->kind != K_TUPLE || pid->n_items != 5)
        FAIL(SAMRT_E_FORMAT, "pickle: persistent id at byte %ld is not a 5-tuple ('storage', type, key, "
             "location, numel)", pos(vm));
    const struct obj *tag = &vm->objs[pid->items[0]], *type = &vm->objs[pid->items[1]];
    const struct obj *key = &vm->objs[pid->items[2]], *loc = &vm->objs[pid->items[3]];
    const struct obj *numel = &vm->objs[pid->items[4]];
    if (tag->kind != K_STR || !str_is(tag->s, (size_t)tag->i, "storage"))
        FAIL(SAMRT_E_FORMAT, "pickle: persistent id at byte %ld is not a 'storage' reference", pos(vm));
    if (type->kind != K_GLOBAL || type->global < G_STORAGE_F32)
        FAIL(SAMRT_E_FORMAT, "pickle: persistent id at byte %ld names no storage type", pos(vm));
    if (key->kind != K_STR || key->i < 1 || key->i >= 64 || memchr(key->s, '/', (size_t)key->i) ||
        memchr(key->s, 0, (size_t)key->i))
        FAIL(SAMRT_E_FORMAT, "pickle: bad storage key at byte %ld", pos(vm));
    if (loc->kind != K_STR) FAIL(SAMRT_E_FORMAT, "pickle: storage location is not a string");
    if (!is_int(vm, pid->items[4]) || numel->i < 0) FAIL(SAMRT_E_FORMAT, "pickle: bad storage size");
    /* copy out before push_new: it may move vm->objs */
    int64_t n = numel->i;
    enum samrt_dtype dtype = g_allowed[type->global].dtype;
    const uint8_t *key_s = key->s;
    uint32_t key_len = (uint32_t)key->i;
    SAMRT_TRY(push_new(vm, K_STORAGE, n, &idx));
    struct obj *o = &vm->objs[idx];
    o->global = (uint8_t)dtype;
    o->s = key_s;
    o->s_len = key_len;
    return SAMRT_OK;
}

/* BUILD: only an OrderedDict's instance state (the state_dict's _metadata), which we drop. */
static enum samrt_status op_build(struct vm *vm) {
    int32_t state, target;
    SAMRT_TRY(pop(vm, &state));
    SAMRT_TRY(peek(vm, &target));
    uint8_t sk = vm->objs[state].kind, tk = vm->objs[target].kind;
    if (tk != K_DICT || (sk != K_DICT && sk != K_NONE && sk != K_TUPLE))
        FAIL(SAMRT_E_FORMAT, "pickle: BUILD at byte %ld sets %s as state on %s; only dict state is accepted",
             pos(vm), kind_names[sk], kind_names[tk]);
    return SAMRT_OK;
}

/* ---- the VM loop --------------------------------------------------------------------------- */

/* Integers, floats and strings: push one value read from the opcode's argument bytes. */
static enum samrt_status op_scalar(struct vm *vm, uint8_t op) {
    int32_t idx;
    switch (op) {
    case 'J': /* BININT: signed 32 */
        SAMRT_TRY(need(vm, 4));
        SAMRT_TRY(push_new(vm, K_INT, (int32_t)(uint32_t)le(vm->p, 4), NULL));
        vm->p += 4;
        break;
    case 'K': /* BININT1 */
        SAMRT_TRY(need(vm, 1));
        SAMRT_TRY(push_new(vm, K_INT, *vm->p++, NULL));
        break;
    case 'M': /* BININT2 */
        SAMRT_TRY(need(vm, 2));
        SAMRT_TRY(push_new(vm, K_INT, (int64_t)le(vm->p, 2), NULL));
        vm->p += 2;
        break;
    case 0x8a: { /* LONG1: n-byte two's complement */
        SAMRT_TRY(need(vm, 1));
        uint8_t n = *vm->p++;
        if (n > 8) FAIL(SAMRT_E_FORMAT, "pickle: integer of %u bytes at byte %ld is too large", n, pos(vm));
        SAMRT_TRY(need(vm, n));
        uint64_t v = le(vm->p, n);
        if (n > 0 && n < 8 && (vm->p[n - 1] & 0x80)) v |= ~0ull << (8 * n); /* sign-extend */
        vm->p += n;
        SAMRT_TRY(push_new(vm, K_INT, (int64_t)v, NULL));
        break;
    }
    case 'G': /* BINFLOAT: big-endian double; the value is never needed */
        SAMRT_TRY(need(vm, 8));
        vm->p += 8;
        SAMRT_TRY(push_new(vm, K_FLOAT, 0, NULL));
        break;
    case 'X': case 0x8c: { /* BINUNICODE (u32 length), SHORT_BINUNICODE (u8 length) */
        int nb = op == 'X' ? 4 : 1;
        SAMRT_TRY(need(vm, (uint64_t)nb));
        uint64_t n = le(vm->p, nb);
        vm->p += nb;
        SAMRT_TRY(need(vm, n));
        SAMRT_TRY(push_new(vm, K_STR, (int64_t)n, &idx));
        vm->objs[idx].s = vm->p;
        vm->p += n;
        break;
    }
    }
    return SAMRT_OK;
}

/* Tuples, APPEND(S) and SETITEM(S): build containers from the stack. */
static enum samrt_status op_container(struct vm *vm, uint8_t op) {
    int32_t a, b, base, idx;
    switch (op) {
    case 't': /* TUPLE */
        SAMRT_TRY(pop_mark(vm, &base));
        SAMRT_TRY(make_tuple(vm, base));
        break;
    case 0x85: case 0x86: case 0x87: { /* TUPLE1..3 */
        int n = op - 0x84;
        if (vm->sp - n < 0 || vm->sp - n < top_mark(vm))
            FAIL(SAMRT_E_FORMAT, "pickle: stack underflow at byte %ld (corrupt data.pkl)", pos(vm));
        SAMRT_TRY(make_tuple(vm, vm->sp - n));
        break;
    }
    case 'a': /* APPEND */
        SAMRT_TRY(pop(vm, &a));
        SAMRT_TRY(peek(vm, &b));
        if (vm->objs[b].kind != K_LIST) FAIL(SAMRT_E_FORMAT, "pickle: APPEND to %s", kind_names[vm->objs[b].kind]);
        SAMRT_TRY(add_item(vm, b, a));
        break;
    case 'e': /* APPENDS */
        SAMRT_TRY(pop_mark(vm, &base));
        if (base <= top_mark(vm) || base < 1 || vm->objs[vm->stack[base - 1]].kind != K_LIST)
            FAIL(SAMRT_E_FORMAT, "pickle: APPENDS at byte %ld without a list", pos(vm));
        for (int32_t k = base; k < vm->sp; k++) SAMRT_TRY(add_item(vm, vm->stack[base - 1], vm->stack[k]));
        vm->sp = base;
        break;
    case 's': /* SETITEM */
        SAMRT_TRY(pop(vm, &b));
        SAMRT_TRY(pop(vm, &a));
        SAMRT_TRY(peek(vm, &idx));
        if (vm->objs[idx].kind != K_DICT) FAIL(SAMRT_E_FORMAT, "pickle: SETITEM on %s", kind_names[vm->objs[idx].kind]);
        SAMRT_TRY(add_item(vm, idx, a));
        SAMRT_TRY(add_item(vm, idx, b));
        break;
    case 'u': /* SETITEMS */
        SAMRT_TRY(pop_mark(vm, &base));
        if (base <= top_mark(vm) || base < 1 || vm->objs[vm->stack[base - 1]].kind != K_DICT ||
            (vm->sp - base) % 2)
            FAIL(SAMRT_E_FORMAT, "pickle: SETITEMS at byte %ld without a dict or with an odd item count", pos(vm));
        for (int32_t k = base; k < vm->sp; k++) SAMRT_TRY(add_item(vm, vm->stack[base - 1], vm->stack[k]));
        vm->sp = base;
        break;
    }
    return SAMRT_OK;
}

/* The memo: BINPUT, LONG_BINPUT, MEMOIZE, BINGET, LONG_BINGET. */
static enum samrt_status op_memo(struct vm *vm, uint8_t op) {
    switch (op) {
    case 'q': /* BINPUT */
        SAMRT_TRY(need(vm, 1));
        SAMRT_TRY(memo_put(vm, *vm->p++));
        break;
    case 'r': /* LONG_BINPUT */
        SAMRT_TRY(need(vm, 4));
        SAMRT_TRY(memo_put(vm, le(vm->p, 4)));
        vm->p += 4;
        break;
    case 0x94: /* MEMOIZE: the next free slot */
        SAMRT_TRY(memo_put(vm, (uint64_t)vm->memo_len));
        break;
    case 'h': /* BINGET */
        SAMRT_TRY(need(vm, 1));
        SAMRT_TRY(memo_get(vm, *vm->p++));
        break;
    case 'j': /* LONG_BINGET */
        SAMRT_TRY(need(vm, 4));
        SAMRT_TRY(memo_get(vm, le(vm->p, 4)));
        vm->p += 4;
        break;
    }
    return SAMRT_OK;
}

static enum samrt_status run(struct vm *vm, int32_t *result) {
    for (;;) {
        SAMRT_TRY(need(vm, 1));
        uint8_t op = *vm->p++;
        int32_t a, b;
        switch (op) {
        case 0x80: /* PROTO */
            SAMRT_TRY(need(vm, 1));
            if (*vm->p < 2 || *vm->p > 5) FAIL(SAMRT_E_UNSUPPORTED, "pickle: protocol %u (2 to 5 supported)", *vm->p);
            vm->p++;
            break;
        case 0x95: /* FRAME: a length hint for buffered readers; the bytes follow inline */
            SAMRT_TRY(need(vm, 8));
            vm->p += 8;
            break;
        case '.': /* STOP */
            return pop(vm, result);
        case '(': /* MARK */
            if (vm->n_marks >= MAX_MARKS) FAIL(SAMRT_E_FORMAT, "pickle: MARKs nested deeper than %d", MAX_MARKS);
            vm->marks[vm->n_marks++] = vm->sp;
            break;
        case 'N': SAMRT_TRY(push_new(vm, K_NONE, 0, NULL)); break;
        case 0x88: SAMRT_TRY(push_new(vm, K_BOOL, 1, NULL)); break;
        case 0x89: SAMRT_TRY(push_new(vm, K_BOOL, 0, NULL)); break;
        case 'J': case 'K': case 'M': case 0x8a: case 'G': case 'X': case 0x8c:
            SAMRT_TRY(op_scalar(vm, op));
            break;
        case ')': SAMRT_TRY(push_new(vm, K_TUPLE, 0, NULL)); break;
        case ']': SAMRT_TRY(push_new(vm, K_LIST, 0, NULL)); break;
        case '}': SAMRT_TRY(push_new(vm, K_DICT, 0, NULL)); break;
        case 't': case 0x85: case 0x86: case 0x87: case 'a': case 'e': case 's': case 'u':
            SAMRT_TRY(op_container(vm, op));
            break;
        case 'q': case 'r': case 0x94: case 'h': case 'j':
            SAMRT_TRY(op_memo(vm, op));
            break;
        case 'c': { /* GLOBAL */
            const uint8_t *m, *n;
            size_t ml, nl;
            SAMRT_TRY(read_line(vm, &m, &ml));
            SAMRT_TRY(read_line(vm, &n, &nl));
            SAMRT_TRY(push_global(vm, m, ml, n, nl));
            break;
        }
        case 0x93: { /* STACK_GLOBAL */
            SAMRT_TRY(pop(vm, &b));
            SAMRT_TRY(pop(vm, &a));
            const struct obj *m = &vm->objs[a], *n = &vm->objs[b];
            if (m->kind != K_STR || n->kind != K_STR) FAIL(SAMRT_E_FORMAT, "pickle: STACK_GLOBAL without two strings");
            SAMRT_TRY(push_global(vm, m->s, (size_t)m->i, n->s, (size_t)n->i));
            break;
        }
        case 'R': SAMRT_TRY(op_reduce(vm)); break;
        case 'Q': SAMRT_TRY(op_binpersid(vm)); break;
        case 'b': SAMRT_TRY(op_build(vm)); break;
        default:
            FAIL(SAMRT_E_FORBIDDEN, "pickle: opcode 0x%02x (%s) at byte %ld is not accepted in a state_dict "
                 "checkpoint; refusing to load", op, opcode_name(op), pos(vm) - 1);
        }
    }
}

/* ---- from the result to the tensor list --------------------------------------------------------- */

/* The dict's value for a string key, or -1. */
static int32_t dict_get(const struct vm *vm, const struct obj *d, const char *key) {
    for (int32_t k = 0; k + 1 < d->n_items; k += 2) {
        const struct obj *o = &vm->objs[d->items[k]];
        if (o->kind == K_STR && str_is(o->s, (size_t)o->i, key)) return d->items[k + 1];
    }
    return -1;
}

static enum samrt_status collect(const struct vm *vm, int32_t result, struct samrt_ckpt_pkl_tensor **out,
                                 int *n_out) {
    const struct obj *top = &vm->objs[result];
    if (top->kind != K_DICT)
        FAIL(SAMRT_E_FORMAT, "pickle: the checkpoint holds %s, not a dict like {\"model\": state_dict}",
             kind_names[top->kind]);
    const struct obj *sd = top;
    int32_t model = dict_get(vm, top, "model");
    if (model >= 0) {
        sd = &vm->objs[model];
        if (sd->kind != K_DICT) FAIL(SAMRT_E_FORMAT, "pickle: checkpoint[\"model\"] is %s, not a state_dict", kind_names[sd->kind]);
    }
    int n = sd->n_items / 2;
    if (n == 0) FAIL(SAMRT_E_FORMAT, "pickle: the state_dict is empty");
    struct samrt_ckpt_pkl_tensor *t = calloc((size_t)n, sizeof *t);
    if (!t) FAIL(SAMRT_E_HOST_MEMORY, "pickle: out of memory");
    for (int k = 0; k < n; k++) {
        const struct obj *key = &vm->objs[sd->items[2 * k]], *val = &vm->objs[sd->items[2 * k + 1]];
        char what[96];
        enum samrt_status st = SAMRT_E_FORMAT;
        if (key->kind != K_STR || key->i == 0 || key->i > 4096 || memchr(key->s, 0, (size_t)key->i)) {
            SAMRT_LOG_ERROR("pickle: state_dict key %d is not a non-empty string", k);
        } else if (val->kind != K_TENSOR) {
            SAMRT_LOG_ERROR("pickle: state_dict['%s'] is %s, not a tensor",
                            samrt_ckpt_printable(key->s, (size_t)key->i, what, sizeof what), kind_names[val->kind]);
        } else if (!(t[k].name = malloc((size_t)key->i + 1))) {
            st = SAMRT_E_HOST_MEMORY;
        } else {
            st = SAMRT_OK;
        }
        if (st != SAMRT_OK) {
            samrt_ckpt_pickle_free(t, n);
            return st;
        }
        memcpy(t[k].name, key->s, (size_t)key->i);
        t[k].name[key->i] = 0;
        const struct tensor_rec *r = &vm->tensors[val->i];
        const struct obj *s = &vm->objs[r->storage];
        t[k].dtype = (enum samrt_dtype)s->global;
        memcpy(t[k].storage_key, s->s, s->s_len);
        t[k].storage_key[s->s_len] = 0;
        t[k].storage_numel = s->i;
        t[k].storage_offset = r->offset;
        t[k].n_dims = r->n_dims;
        memcpy(t[k].ne, r->ne, sizeof r->ne);
        t[k].nelements = r->nelements;
    }
    *out = t;
    *n_out = n;
    return SAMRT_OK;
}

void samrt_ckpt_pickle_free(struct samrt_ckpt_pkl_tensor *t, int n) {
    if (!t) return;
    for (int k = 0; k < n; k++) free(t[k].name);
    free(t);
}

enum samrt_status samrt_ckpt_pickle_parse(const uint8_t *pkl, uint64_t len,
                                          struct samrt_ckpt_pkl_tensor **out, int *n_out) {
    *out = NULL;
    *n_out = 0;
    SAMRT_CHECK(len <= SAMRT_PICKLE_MAX_BYTES, SAMRT_E_FORMAT,
                "pickle: data.pkl is %llu bytes; a state_dict pickle is far smaller (limit %u)",
                (unsigned long long)len, SAMRT_PICKLE_MAX_BYTES);
    struct vm vm = {.p = pkl, .end = pkl + len, .start = pkl};
    vm.stack = malloc(MAX_STACK * sizeof *vm.stack);
    enum samrt_status st = SAMRT_E_HOST_MEMORY;
    int32_t result = -1;
    if (vm.stack) {
        st = run(&vm, &result);
        if (st == SAMRT_OK) st = collect(&vm, result, out, n_out);
    } else {
        SAMRT_LOG_ERROR("pickle: out of memory");
    }
    for (int32_t k = 0; k < vm.n_objs; k++) free(vm.objs[k].items);
    free(vm.objs);
    free(vm.stack);
    free(vm.memo);
    free(vm.tensors);
    return st;
}
