"""The realistic shape of every example kernel that `tessera tune` is judged
at (scripts/tuning_results.py writes docs/tuning_results.md from it;
tests/tune/check_tuned_examples.py checks the configs it chooses), with the
dtype of its float tensors (integer offsets / indices keep kernel_table's
arg_dtypes). The headline shapes of issue 18 (4096^3 matmul, attention with
batch*heads 8 and seq 4096) are here; kernels that hold a whole row or
product per grid step use bench/matrix.toml's realistic shapes."""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "conformance"))
import kernel_table  # noqa: E402

SQUARE = [(4096, 4096)]
BF16 = "bfloat16"
F32 = "float32"
# kernel -> (one shape per tensor parameter, float dtype)
REALISTIC = {
    "add": (SQUARE * 2, BF16), "exp": (SQUARE, BF16), "softmax": (SQUARE, BF16),
    "matmul": (SQUARE * 2, BF16),
    "matmul_bias_gelu": ([(4096, 4096), (4096, 4096), (4096,)], BF16),
    "bmm": ([(8, 1024, 1024), (8, 1024, 1024)], BF16),
    "attention": ([(1, 8, 4096, 128)] * 3, BF16),
    "split_k_matmul": ([(1024, 16384), (16384, 1024)], BF16),
    "layer_norm": ([(4096, 4096), (4096,), (4096,)], BF16),
    "rms_norm": ([(4096, 4096), (4096,)], BF16),
    "row_sum": (SQUARE, BF16), "long_sum": ([(64, 131072)], BF16),
    "row_cumsum": (SQUARE, F32),
    "geglu": (SQUARE * 2, BF16), "swiglu": (SQUARE * 2, BF16),
    "scaled_epilogue": ([(4096, 4096), (4096,)], BF16),
    "block_col_sums": (SQUARE, BF16),
    "dropout": (SQUARE, BF16),
    "chunk_sums": (SQUARE, BF16),
    # The whole [m, n] output stays in VMEM across the k grid (double
    # buffered, plus its f32 accumulator): 2048 x 2048 needs 83 MiB, more
    # than a v7x core's 64 MiB, so m and n are 1024 and k is long.
    "k_grid_matmul": ([(1024, 4096), (4096, 1024)], BF16),
    "tunable_split_k": ([(1024, 8192), (8192, 1024)], BF16),
    "fp8_matmul_quant": ([(2048, 2048), (2048, 2048)], BF16),
    "grid_bmm": ([(8, 512, 512), (8, 512, 512)], BF16),
    "jagged_sum": ([(4096, 512), (257,)], F32),
    "jagged_mean": ([(4096, 512), (257,)], F32),
    "jagged_softmax": ([(4096, 512), (257,)], F32),
    "jagged_softmax_flat": ([(4096, 512), (257,)], F32),
    "jagged_rows_sum": ([(4096, 512), (257,)], F32),
    "jagged_rows_mean": ([(4096, 512), (257,), (256,)], F32),
    "jagged_rows_layer_norm": ([(4096, 512), (257,)], F32),
    "jagged_prefix_add": ([(4096, 1024), (4097,), (4096,)], F32),
    # x_data (4 MiB f32, whole in VMEM) read at lane offsets from memory.
    "jagged_dense_add": ([(1048576,), (4097,), (4096, 1024)], F32),
    "jagged_rows_bmm": ([(65,), (4096, 256), (64, 256, 256), (64, 256)], F32),
    "embedding": ([(4096,), (8192, 256)], F32),
    "conditional_rescale": ([(4096, 1024), (4096,)], F32),
    "embedding_rows": ([(4096,), (8192, 256)], F32),
    "gather_gemv": ([(8, 512, 512), (64,), (512, 256)], F32),
    "masked_splice": ([(4096, 4096), (4096, 4096)], F32),
    "jagged_gather_sum": ([(8192, 512), (2048,), (2048,)], F32),
    "cross_entropy_rows": ([(4096, 32000), (4096,)], BF16),
    "label_nll": ([(4096, 32000), (4096,), (4096,)], BF16),
    "chunk_state": ([(2, 1024, 1, 128), (2, 1024, 4, 64), (2, 4, 8, 128), (2, 4, 8, 128)], F32),
    "lagged_diff": ([(1024, 4, 256)], F32),
    "concat_seq": ([(1024, 4, 256), (1024, 4, 256)], F32),
    "concat_slices": ([(4096, 1000), (4096, 1048)], F32),
    "neighbor_sum": ([(2048, 2048)], BF16),
    "concat_cols": ([(2048, 1024), (2048, 1024)], F32),
    # Host slices and host stores (grpo_loss's shapes, a smaller vocab).
    "shifted_views": ([(8, 1025, 2048)], BF16),
    "shifted_grad": ([(8, 1025, 1024), (8, 1024)], F32),
    # Scatters: 32-bit rows only (docs/tpu_legality.md, "Scatters").
    "scatter_rows": ([(4096, 1024), (1024, 1024), (4096,)], F32),
    "segment_sum": ([(65536, 512), (65536,)], F32),
    "segment_reduction": ([(65536, 512), (65536,)], F32),
    "expert_scatter": ([(1024, 512), (8, 512, 512), (8,), (9,), (1024,)], F32),
    # Windows at group offsets under a data-dependent inner grid.
    # x and out stay whole in VMEM (windows at data offsets): 2048 rows.
    "grouped_matmul": ([(2048, 1024), (1024, 1024), (17,)], BF16),
}
assert set(REALISTIC) == set(kernel_table.KERNELS), set(kernel_table.KERNELS) ^ set(REALISTIC)


def tune_flags(source_dir, kernel, shapes=None, dtype=None):
    """--arg flags of `kernel` at its realistic shapes (or the given ones)."""
    default_shapes, default_dtype = REALISTIC[kernel]
    names = kernel_table.kernel_parameters(
        pathlib.Path(source_dir) / "examples" / f"{kernel}.py", kernel)
    return kernel_table.arg_flags(names, shapes or default_shapes, dtype or default_dtype,
                                  kernel_table.SPECS[kernel])
