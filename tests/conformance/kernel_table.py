"""The example kernels the conformance harness checks, with their test shapes.

Shapes are small (a few blocks per dim). The frontend's default block is 128
for a tile dim that indexes one of the last two dims of a tensor (clamped to
the dim) and 1 for batch-like dims, so "even" uses multiples of 128 and
"ragged" uses dims above 128 that are not (200, 300, 136, 1000): every
ragged dim has a partial last block. The tensor
parameters of examples/<kernel>.py are matched by position to `shapes`;
parameters after them (scalars such as eps) keep their defaults, in the kernel
and in examples/references.py alike.
"""
import ast
import dataclasses
import pathlib

KERNELS = (
    "add", "exp", "softmax", "matmul", "matmul_bias_gelu", "bmm", "attention",
    "split_k_matmul", "layer_norm", "rms_norm", "row_sum", "long_sum", "geglu",
    "swiglu", "scaled_epilogue", "block_col_sums", "dropout",
    "chunk_sums", "k_grid_matmul", "tunable_split_k", "fp8_matmul_quant",
    "grid_bmm",
    "jagged_sum", "jagged_mean", "jagged_softmax", "embedding",
    "conditional_rescale",
    "embedding_rows", "gather_gemv", "masked_splice", "jagged_gather_sum",
    "chunk_state", "lagged_diff", "concat_seq", "neighbor_sum", "concat_cols",
    "concat_slices", "cross_entropy_rows", "label_nll", "shifted_views", "scatter_rows",
    "segment_sum", "expert_scatter", "shifted_grad", "jagged_rows_sum",
    "jagged_rows_mean", "jagged_rows_layer_norm", "jagged_rows_bmm",
    "jagged_prefix_add", "jagged_dense_add", "row_cumsum", "grouped_matmul",
    "segment_reduction", "jagged_softmax_flat",
)
LAUNCHERS = ("unroll", "emit_pipeline", "fori_loop")
DTYPES = ("float32", "bfloat16")
DTYPE_SPELLING = {"float32": "f32", "bfloat16": "bf16", "int32": "i32"}


@dataclasses.dataclass(frozen=True)
class LargeCase:
    """A realistic size that is only compiled (TPU export and the real
    compiler per generation): interpreting it on the CPU would cost minutes."""
    label: str
    shapes: list
    dtype: str
    # Helion order: one per hl.tile dim, outer before inner (config
    # `[kernels.<name>] block_sizes`); None keeps the kernel's defaults.
    block_sizes: tuple = None
    # A kernel whose host function reads scalars from device memory
    # (`n = int(x_offsets[-1].item())`, KERNEL_host_reads): their values
    # ({"n": 8192}), bound as KERNEL_launch's static arguments, since a
    # compile-only row has shapes but no data to read them from.
    host_reads: dict = None


@dataclasses.dataclass(frozen=True)
class KernelSpec:
    # shape label ("even" | "ragged") -> one shape per tensor parameter.
    shapes: dict
    dtypes: tuple = DTYPES
    large: tuple = ()
    # Per tensor parameter: None (the row's dtype) or a fixed dtype such as
    # "int32" (offsets, indices; values from examples/references.py's
    # INTEGER_ARGS).
    arg_dtypes: tuple = ()

    def dtype_of(self, position, dtype):
        fixed = self.arg_dtypes[position] if position < len(self.arg_dtypes) else None
        return fixed or dtype


def _same(shape, count):
    return [shape] * count


SPECS = {
    "add": KernelSpec({"even": _same((256, 256), 2), "ragged": _same((200, 300), 2)}),
    "exp": KernelSpec({"even": [(256, 256)], "ragged": [(200, 300)]}),
    "softmax": KernelSpec({"even": [(256, 256)], "ragged": [(200, 300)]}),
    "matmul": KernelSpec({"even": [(256, 256), (256, 256)],
                          "ragged": [(200, 200), (200, 300)]},
                         large=(LargeCase("2048^3 blocks 512", _same((2048, 2048), 2),
                                          "bfloat16", (512, 512, 512)),
                                LargeCase("2048^3 blocks 1024", _same((2048, 2048), 2),
                                          "bfloat16", (1024, 1024, 1024)))),
    "matmul_bias_gelu": KernelSpec({"even": [(256, 256), (256, 256), (256,)],
                                    "ragged": [(200, 200), (200, 300), (300,)]}),
    "bmm": KernelSpec({"even": [(2, 128, 256), (2, 256, 256)],
                       "ragged": [(2, 200, 136), (2, 136, 200)]}),
    "attention": KernelSpec({"even": _same((1, 2, 256, 128), 3),
                             "ragged": _same((1, 2, 200, 64), 3)},
                            large=(LargeCase("seq 2048 d 128", _same((1, 8, 2048, 128), 3),
                                             "bfloat16", (1, 512, 512)),
                                   LargeCase("seq 2048 d 256", _same((1, 8, 2048, 256), 3),
                                             "bfloat16", (1, 256, 512)))),
    "split_k_matmul": KernelSpec({"even": [(256, 512), (512, 256)],
                                  "ragged": [(200, 300), (300, 200)]}),
    "layer_norm": KernelSpec({"even": [(256, 256), (256,), (256,)],
                              "ragged": [(200, 300), (300,), (300,)]},
                             large=(LargeCase("4096x4096", [(4096, 4096), (4096,), (4096,)],
                                              "float32"),
                                    LargeCase("4096x4096", [(4096, 4096), (4096,), (4096,)],
                                              "bfloat16"))),
    "rms_norm": KernelSpec({"even": [(256, 256), (256,)], "ragged": [(200, 300), (300,)]}),
    "row_sum": KernelSpec({"even": [(256, 256)], "ragged": [(200, 300)]}),
    # row_cumsum: hl.cumsum along whole rows (a TPU scan of lane rotations);
    # f32 only: a bf16 running sum's rounding grows with the row.
    "row_cumsum": KernelSpec({"even": [(256, 256)], "ragged": [(200, 300)]},
                             dtypes=("float32",)),
    "long_sum": KernelSpec({"even": [(256, 1024)], "ragged": [(200, 1000)]}),
    "geglu": KernelSpec({"even": _same((256, 256), 2), "ragged": _same((200, 300), 2)}),
    "swiglu": KernelSpec({"even": _same((256, 256), 2), "ragged": _same((200, 300), 2)}),
    "scaled_epilogue": KernelSpec({"even": [(256, 256), (256,)],
                                   "ragged": [(200, 300), (300,)]}),
    "block_col_sums": KernelSpec({"even": [(512, 256)], "ragged": [(300, 200)]}),
    "dropout": KernelSpec({"even": [(256, 384)], "ragged": [(200, 300)]}),
    "chunk_sums": KernelSpec({"even": [(256, 512)], "ragged": [(200, 300)]}),
    "tunable_split_k": KernelSpec({"even": [(256, 512), (512, 256)],
                                   "ragged": [(200, 300), (300, 200)]}),
    "fp8_matmul_quant": KernelSpec({"even": [(256, 384), (384, 256)],
                                    "ragged": [(200, 300), (300, 136)]}),
    "grid_bmm": KernelSpec({"even": [(2, 256, 384), (2, 384, 128)],
                            "ragged": [(3, 200, 300), (3, 300, 136)]}),
    "k_grid_matmul": KernelSpec({"even": [(256, 384), (384, 128)],
                                 "ragged": [(200, 300), (300, 136)]}),
    # Jagged segments: x_data [total, m] and offsets [segments + 1] with
    # empty segments and unaligned starts. Rows of one segment are written by
    # one grid step at a dynamic row: one 32-bit row (packed types need
    # aligned rows), so f32 only.
    "jagged_sum": KernelSpec({"even": [(512, 256), (9,)], "ragged": [(300, 200), (14,)]},
                             dtypes=("float32",), arg_dtypes=(None, "int32"),
                             large=(LargeCase("total 4096 m 512 segments 256",
                                              [(4096, 512), (257,)], "float32"),)),
    "jagged_mean": KernelSpec({"even": [(512, 256), (9,)], "ragged": [(300, 200), (14,)]},
                              dtypes=("float32",), arg_dtypes=(None, "int32"),
                              large=(LargeCase("total 4096 m 512 segments 256",
                                               [(4096, 512), (257,)], "float32"),)),
    "jagged_softmax": KernelSpec({"even": [(512, 256), (9,)],
                                  "ragged": [(300, 200), (14,)]},
                                 dtypes=("float32",), arg_dtypes=(None, "int32"),
                                 large=(LargeCase("total 4096 m 512 segments 256",
                                                  [(4096, 512), (257,)], "float32"),)),
    # Helion's jagged_softmax.py: the output's row count x_offsets[-1] is
    # read on the host before the launch (a host sync); f32 only.
    "jagged_softmax_flat": KernelSpec({"even": [(256, 128), (9,)],
                                       "ragged": [(300, 200), (14,)]},
                                      dtypes=("float32",), arg_dtypes=(None, "int32"),
                                      large=(LargeCase("total 4096 m 512 segments 256",
                                                       [(4096, 512), (257,)], "float32",
                                                       host_reads={"n": 4096}),)),
    # hl.jagged_tile over a tile of rows read through the flattened data
    # (one row per grid step, as above; f32 only).
    "jagged_rows_sum": KernelSpec({"even": [(512, 256), (9,)],
                                   "ragged": [(300, 200), (14,)]},
                                  dtypes=("float32",), arg_dtypes=(None, "int32")),
    "jagged_rows_mean": KernelSpec({"even": [(512, 256), (9,), (8,)],
                                    "ragged": [(300, 200), (14,), (13,)]},
                                   dtypes=("float32",),
                                   arg_dtypes=(None, "int32", "int32")),
    "jagged_rows_layer_norm": KernelSpec({"even": [(512, 256), (9,)],
                                          "ragged": [(300, 200), (14,)]},
                                         dtypes=("float32",),
                                         arg_dtypes=(None, "int32")),
    # offsets [b + 1], jagged [total, d], dense [b, d, n], bias [b, n].
    "jagged_rows_bmm": KernelSpec({"even": [(5,), (512, 128), (4, 128, 256), (4, 256)],
                                   "ragged": [(7,), (300, 136), (6, 136, 200), (6, 200)]},
                                  dtypes=("float32",),
                                  arg_dtypes=("int32", None, None, None)),
    # Loop bounds `lengths.amax()` over a rows tile (one row per step).
    "jagged_prefix_add": KernelSpec({"even": [(16, 256), (17,), (16,)],
                                     "ragged": [(13, 200), (14,), (13,)]},
                                    dtypes=("float32",),
                                    arg_dtypes=(None, "int32", None)),
    # x_data read at a lane offset from memory (starts + column): an
    # aligned window rotated into place; rows of 0..n values, one empty
    # and one n long (longer than a 128-lane block).
    # f32 only, as the other one-row-per-step kernels (bf16 was checked by
    # hand: docs/tpu_legality.md).
    "jagged_dense_add": KernelSpec({"even": [(700,), (9,), (8, 256)],
                                    "ragged": [(500,), (6,), (5, 200)]},
                                   dtypes=("float32",),
                                   arg_dtypes=(None, "int32", None)),
    # x [rows, k], w [k, n], offsets [groups + 1]: windows at group offsets
    # (hl.arange) under an inner hl.grid of a trip count read from memory;
    # f32 and bf16 (8- and 16-row aligned windows for the ragged stores).
    # Large: x and the output stay whole in VMEM (the group windows start at
    # data offsets), so 4096 rows x 1024 bf16 needs 67 MiB, past v7x's 64
    # (a located error); 2048 rows fit every generation.
    "grouped_matmul": KernelSpec({"even": [(128, 128), (128, 128), (7,)],
                                  "ragged": [(100, 136), (136, 200), (7,)]},
                                 arg_dtypes=(None, None, "int32"),
                                 large=(LargeCase("rows 2048 k 1024 n 1024 groups 8",
                                                  [(2048, 1024), (1024, 1024), (9,)],
                                                  "bfloat16"),)),
    "embedding": KernelSpec({"even": [(64,), (512, 256)], "ragged": [(37,), (1000, 200)]},
                            dtypes=("float32",), arg_dtypes=("int32", None),
                            large=(LargeCase("vocab 8192 d 256 n 4096",
                                             [(4096,), (8192, 256)], "float32"),)),
    # Run-time `if`s (lax.cond) on a mode read per row and on the row's sum;
    # one row per grid step, so f32 only (as the jagged kernels).
    "conditional_rescale": KernelSpec({"even": [(256, 256), (256,)],
                                       "ragged": [(37, 200), (37,)]},
                                      dtypes=("float32",), arg_dtypes=(None, "int32"),
                                      large=(LargeCase("rows 4096 n 1024",
                                                       [(4096, 1024), (4096,)], "float32"),)),
    # Gathers (docs/tpu_legality.md): rows selected by an index vector, one
    # dynamic-slice load per row, 32-bit rows only (packed rows are E2003).
    "embedding_rows": KernelSpec({"even": [(256,), (512, 256)],
                                  "ragged": [(300,), (1000, 200)]},
                                 dtypes=("float32",), arg_dtypes=("int32", None),
                                 large=(LargeCase("vocab 8192 d 256 n 4096",
                                                  [(4096,), (8192, 256)], "float32"),)),
    # Rows are gathered whole (a row at a dynamic offset loads with whole
    # lanes only), then each k block is read from them: ragged s = 136 has
    # two lane blocks. bf16: the table is gathered as f32 (wide_gathers.h,
    # Helion's gather_gemv with f16 weights).
    "gather_gemv": KernelSpec({"even": [(4, 128, 128), (3,), (128, 256)],
                               "ragged": [(3, 136, 136), (5,), (136, 200)]},
                              arg_dtypes=(None, "int32", None),
                              large=(LargeCase("b 8 s 512 n 64 m 256",
                                               [(8, 512, 512), (64,), (512, 256)],
                                               "float32"),)),
    # bf16: Mosaic 0.0.42 cannot relayout the i1 mask of a bf16 select
    # ("Invalid relayout ... vector<128x128xi1>") in this kernel.
    "masked_splice": KernelSpec({"even": _same((256, 384), 2),
                                 "ragged": _same((200, 300), 2)},
                                dtypes=("float32",),
                                large=(LargeCase("4096x4096", _same((4096, 4096), 2),
                                                 "float32"),)),
    "jagged_gather_sum": KernelSpec({"even": [(512, 256), (128,), (128,)],
                                     "ragged": [(300, 200), (150,), (150,)]},
                                    dtypes=("float32",),
                                    arg_dtypes=(None, "int32", "int32"),
                                    large=(LargeCase("total 8192 m 512 segments 2048",
                                                     [(8192, 512), (2048,), (2048,)],
                                                     "float32"),)),
    # Shifted tile indices (`c_start + tile_l.index`, `tile_t + lead`,
    # `tile_t.index + seq`) on the leading sequence dim. chunk_state:
    # B [batch, seqlen, ngroups, dstate], x [batch, seqlen, nheads, headdim],
    # dt and decay [batch, nheads, nchunks, chunk_size]; ragged: the last
    # chunk runs past seqlen (200 = 3 * 64 + 8), headdim and dstate are
    # partial blocks, two heads per group. f32 only: a bf16 scalar load
    # (`decay[..., chunk_size - 1]`) is a 16-bit vector.extract Mosaic
    # rejects ("Only 32-bit scalar vector.extracts supported").
    "chunk_state": KernelSpec({"even": [(1, 256, 1, 128), (1, 256, 2, 128),
                                        (1, 2, 2, 128), (1, 2, 2, 128)],
                               "ragged": [(2, 200, 2, 136), (2, 200, 4, 40),
                                          (2, 4, 4, 64), (2, 4, 4, 64)]},
                              dtypes=("float32",)),
    # Ragged: 200 steps, a last tile of 8 of the 32-step block, shifts 3 and
    # 5 and 200 that no block divides. f32 only: the head is one row of the
    # second-minor dim at a dynamic offset (`tile_h.begin`), which Mosaic
    # rejects for packed types (E2003 "multiple of 2"; docs/tpu_legality.md).
    "lagged_diff": KernelSpec({"even": [(256, 2, 128)], "ragged": [(200, 3, 136)]},
                              dtypes=("float32",)),
    "concat_seq": KernelSpec({"even": _same((256, 2, 128), 2),
                              "ragged": _same((200, 3, 136), 2)},
                             dtypes=("float32",)),
    # Shifts on both minor dims (+1 row, -3 lanes): aligned windows rotated
    # into place on the TPU.
    "neighbor_sum": KernelSpec({"even": [(256, 256)], "ragged": [(200, 300)]}),
    # Lane shifts by 0 and -nx (Helion's concatenate without hl.load): the
    # ragged x ends mid-block (300), so one output block reads both halves.
    # f32 only: the kernel's own torch.where with a broadcast row mask
    # (`(tile_n.index < nx)[None, :]`) on bf16 values is a relayout Mosaic
    # rejects ("Invalid relayout ... vector<128x128xi1>"), shifts aside.
    "concat_cols": KernelSpec({"even": [(256, 256), (256, 128)],
                               "ragged": [(200, 300), (200, 136)]},
                              dtypes=("float32",)),
    # Each input stored whole into its column window (Helion's simple
    # concatenate). Even: x 500 wide, so on the GPU x's 512-wide block is
    # stored into the 500-wide window masked; ragged (also the generic
    # rows): 200 rows, power-of-two widths (a symbolic width's window is
    # not rounded).
    "concat_slices": KernelSpec({"even": [(256, 500), (256, 512)],
                                 "ragged": [(200, 256), (200, 128)]}),
    # One element per row at a lane from data (`hl.load(logits, [tile_n.index,
    # labels[tile_n]])`): the row block is read whole along the vocabulary and
    # the label's lane selected by a compare. Ragged: 200 rows (a partial
    # last block of 128) and a 1000-wide vocabulary (not a lane multiple).
    # Large: a 32000 vocabulary, 8 MiB a block of 128 rows in bf16, 16 MiB
    # in f32 (with its f32 temporaries about 50 MiB: under v7x's 64 MiB).
    "cross_entropy_rows": KernelSpec({"even": [(256, 512), (256,)],
                                      "ragged": [(200, 1000), (200,)]},
                                     arg_dtypes=(None, "int32"),
                                     large=(LargeCase("4096 x vocab 32000",
                                                      [(4096, 32000), (4096,)],
                                                      "bfloat16"),
                                            LargeCase("4096 x vocab 32000",
                                                      [(4096, 32000), (4096,)],
                                                      "float32"))),
    # The same pick through a flat view (`log_probs.reshape(-1)` at
    # `targets + tile.index * classes`), which helion-py rewrites into the 2-D
    # form, plus a label-smoothing row sum over the same row block.
    "label_nll": KernelSpec({"even": [(256, 512), (256,), (256,)],
                             "ragged": [(200, 1000), (200,), (200,)]},
                            arg_dtypes=(None, "int32", None),
                            large=(LargeCase("4096 x classes 32000",
                                             [(4096, 32000), (4096,), (4096,)],
                                             "bfloat16"),)),
    # Host-side slices of the argument (`logits[:, :-1, :]`, `logits[:, 1:,
    # :]`, as grpo_loss): steps - 1 is 256 (two whole blocks of 128) or 200
    # (a partial last block); the vocabulary is read whole per row. Large:
    # one batch row a block (a [8, 128, 4096] block with its f32 copies is
    # over v7x's 64 MiB of VMEM).
    "shifted_views": KernelSpec({"even": [(2, 257, 256)],
                                 "ragged": [(3, 201, 300)]},
                                large=(LargeCase("8 x 2048 steps x 4096",
                                                 [(8, 2049, 4096)],
                                                 "bfloat16", (1, 128)),)),
    # grpo_loss backward's host side: a slice of the argument before the
    # kernel, a store on the result after it (`grad[:, -1, :] = 0.25`).
    "shifted_grad": KernelSpec({"even": [(2, 257, 256), (2, 256)],
                                "ragged": [(3, 201, 300), (3, 200)]}),
    # Scatters (docs/tpu_legality.md, "Scatters"): rows written at positions
    # read from SMEM, 32-bit rows only (a row at a data-dependent sublane
    # offset, as gathers). scatter_rows: a matmul whose rows go back to a
    # permutation (moe_matmul_ogs's store); ragged: 200 rows, k 136, d 300.
    # bf16: the output is scattered as f32 and narrowed after the launch
    # (wide_gathers.h, Helion's moe_matmul_ogs with f16 activations).
    "scatter_rows": KernelSpec({"even": [(256, 256), (256, 384), (256,)],
                                "ragged": [(200, 136), (136, 300), (200,)]},
                               arg_dtypes=(None, None, "int32"),
                               large=(LargeCase("4096 tokens x 1024 x 1024",
                                                [(4096, 1024), (1024, 1024),
                                                 (4096,)],
                                                "float32"),)),
    # segment_sum: hl.atomic_add at segment ids with repeats (segment_
    # reduction's atomic) into 48 segments; ragged: 200 rows, 300 features.
    "segment_sum": KernelSpec({"even": [(256, 256), (256,)],
                               "ragged": [(200, 300), (200,)]},
                              dtypes=("float32",),
                              arg_dtypes=(None, "int32"),
                              large=(LargeCase("65536 rows x 512",
                                               [(65536, 512), (65536,)],
                                               "float32"),)),
    # segment_reduction: Helion's segment_reduction pattern (a scan that
    # restarts at each new id, the run ends by a shifted read of the ids, an
    # atomic at the ids, read from SMEM while the scan reads them from VMEM);
    # sorted ids with a run longer than a block; ragged: 300 rows, 200
    # features. f32 only: bf16 adds no path (the scan and the accumulator
    # are f32 either way).
    "segment_reduction": KernelSpec({"even": [(256, 256), (256,)],
                                     "ragged": [(300, 200), (300,)]},
                                    dtypes=("float32",),
                                    arg_dtypes=(None, "int32"),
                                    large=(LargeCase("65536 rows x 512",
                                                     [(65536, 512), (65536,)],
                                                     "float32"),)),
    # expert_scatter: moe_matmul_ogs's shape (per-expert token ranges from
    # SMEM, row gathers, a scatter store through an inner lane tile, padding
    # rows pointed at the expert's first token); 4 experts over 256 tokens,
    # ragged: 3 experts over 200 tokens, k 136, n 300.
    "expert_scatter": KernelSpec({"even": [(256, 128), (4, 128, 256), (4,),
                                           (5,), (256,)],
                                  "ragged": [(200, 136), (3, 136, 300), (3,),
                                             (4,), (200,)]},
                                 dtypes=("float32",),
                                 arg_dtypes=(None, None, "int32", "int32",
                                             "int32")),
}


def kernel_parameters(example_path, kernel):
    """Parameter names of `def <kernel>(...)` in the example file."""
    tree = ast.parse(pathlib.Path(example_path).read_text(), filename=str(example_path))
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == kernel:
            return [a.arg for a in node.args.posonlyargs + node.args.args]
    raise LookupError(f"{example_path}: no function named '{kernel}'")


DTYPE_SPELLING["int32"] = "i32"


def arg_flags(names, shapes, dtype, spec=None):
    """--arg flags for the tessera CLI: x=f32[64,256]."""
    spec = spec or KernelSpec({})
    return [f"--arg={name}={DTYPE_SPELLING[spec.dtype_of(i, dtype)]}"
            f"[{','.join(str(d) for d in shape)}]"
            for i, (name, shape) in enumerate(zip(names, shapes))]
