/* test_ops_table.c - one table-driven test of every kernel that has a plain-C reference and a
 * CUDA launcher (tests/ops_table.h lists the rows). Built twice:
 *   test_ops_table       (label cpu)  each row's reference: deterministic, every output written
 *                                      and finite, the op's own naive check where cheap;
 *   test_ops_table_cuda  (label cuda) each row's launcher against its reference; exits 77
 *                                      without a CUDA device.
 * Run: test_ops_table[_cuda] [--list] [--bench] [--selftest] [filter]
 *   --list      one ROW line per row;            filter  rows whose "op/shape" contains it
 *   --bench     (cuda) one BENCH line per bench row and dtype
 *   --selftest  a reference output moved by one element must be reported as a failure
 *   --all-dtypes (cpu) the production rows at every dtype too (by default at their first) */
#include "ops_table.h"

int main(int argc, char **argv) {
#ifdef OT_CUDA_PART
    return ot_run_cuda(argc, argv);
#else
    return ot_run_host(argc, argv);
#endif
}
