"""The benchmark matrix: reading bench/matrix.toml and expanding it into jobs.

A matrix file has one [matrix] table (the axes every kernel shares) and one
[kernels.<name>] table per example kernel:

    [matrix]
    launchers = ["unroll", "emit_pipeline", "fori_loop"]   # configs/pallas_<l>.toml
    tpus = ["v5e", "v6e", "v7x"]
    dtypes = ["f32", "bf16"]
    realistic_dtypes = ["bf16"]   # optional: the dtypes at one shape (small_, ragged_ too)
    shapes = ["small", "ragged", "realistic"]
    compile_repeats = 3        # in-process compile time: median of this many
    measure_warmup = 3         # TPU host only: untimed calls first
    measure_repeats = 20       # then this many timed calls
    tuned_config = "configs/tuned.toml"   # a "tuned" block variant if it exists

    [kernels.matmul]
    realistic = [[2048, 2048], [2048, 2048]]   # one shape per tensor parameter
    realistic_dtypes = ["bf16"]                # optional, as in [matrix]
    blocks = [[512, 512, 512]]                 # extra block-size variants
    baseline = "matmul"                        # a hand-written JAX kernel
    baseline_at = ["small", "realistic"]       # where (default: realistic)

"small" and "ragged" default to the conformance table's "even" and "ragged"
shapes (tests/conformance/kernel_table.py), which the NumPy references in
examples/references.py are checked against; a kernel table may override any
shape label. Listed block sizes are Helion's order (one per hl.tile dim, outer
before inner) and apply at the shapes in `blocks_at` (default: realistic).
"""
import dataclasses
import itertools
import pathlib
import sys
import tomllib

SOURCE_DIR = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(SOURCE_DIR / "tests" / "conformance"))
import kernel_table  # noqa: E402  (the conformance harness's kernels and shapes)

TPUS = ("v5e", "v6e", "v7x")
DTYPES = {"f32": "float32", "bf16": "bfloat16"}
SHAPE_LABELS = ("small", "ragged", "realistic")
# Shapes small enough to run in interpret mode on the CPU.
INTERPRETED_SHAPES = ("small", "ragged")
CONFORMANCE_SHAPE = {"small": "even", "ragged": "ragged"}
# The hand-written JAX kernels baselines.py knows.
BASELINE_NAMES = ("matmul", "flash_attention")
# A cell's tpu_compile until report.merge takes the verdict from the baseline
# job that compiled the same module (Job.compiled_by_baseline).
COMPILED_BY_BASELINE = "in the baseline job"

SHAPE_DTYPE_KEYS = {f"{label}_dtypes" for label in ("small", "ragged", "realistic")}
MATRIX_KEYS = {"launchers", "tpus", "dtypes", "shapes", "compile_repeats", *SHAPE_DTYPE_KEYS,
               "measure_warmup", "measure_repeats", "tuned_config"}
KERNEL_KEYS = {"small", "ragged", "realistic", "dtypes", *SHAPE_DTYPE_KEYS, "launchers", "blocks", "blocks_at", "baseline", "baseline_at"}


class MatrixError(ValueError):
    """A mistake in the matrix file, with the file and the key."""


@dataclasses.dataclass(frozen=True)
class Variant:
    """A block-size choice: the kernel's own, the tuned config's, or listed."""
    label: str                 # "own" | "tuned" | "512x512x512"
    block_sizes: tuple = None  # None: the kernel's (or the tuned file's) own


@dataclasses.dataclass(frozen=True)
class Job:
    """The cells of one (kernel, shape, dtype, launcher, variant), one per TPU
    generation: one unit of work for the local pool or a Ray task."""
    kind: str                  # "cells" | "correctness" | "baseline"
    kernel: str
    shape: str
    shapes: tuple
    dtype: str                 # "f32" | "bf16"
    launcher: str              # "baseline" jobs: our launchers, comma-separated
    variant: Variant
    tpus: tuple
    baseline: str = None       # "baseline" jobs: the JAX kernel's name
    # "cells" jobs: a baseline job compiles these very modules with the real
    # compiler (for its static schedule), so without a local TPU to time
    # them this job leaves the deviceless compile to it (report.merge).
    compiled_by_baseline: bool = False

    @property
    def key(self):
        return (f"{self.kind}:{self.kernel}/{self.shape}/{self.dtype}/"
                f"{self.launcher}/{self.variant.label}")


@dataclasses.dataclass
class Matrix:
    path: pathlib.Path
    launchers: tuple
    tpus: tuple
    dtypes: tuple
    shape_dtypes: dict          # "realistic" -> dtypes at that shape ([matrix] <shape>_dtypes)
    shapes: tuple
    compile_repeats: int
    measure_warmup: int
    measure_repeats: int
    tuned_config: pathlib.Path  # None when not given or absent
    kernels: dict               # name -> dict of the kernel's table

    def kernel_shapes(self, kernel):
        """label -> shapes (tuples) of the kernel's tensor parameters."""
        table = self.kernels[kernel]
        spec = kernel_table.SPECS.get(kernel)
        shapes = {}
        for label in SHAPE_LABELS:
            if label in table:
                shapes[label] = tuple(tuple(s) for s in table[label])
            elif spec is not None and CONFORMANCE_SHAPE.get(label) in spec.shapes:
                shapes[label] = tuple(tuple(s) for s in spec.shapes[CONFORMANCE_SHAPE[label]])
        return shapes

    def kernel_dtypes(self, kernel, shape):
        table = self.kernels[kernel]
        wanted = table.get(f"{shape}_dtypes", table.get(
            "dtypes", self.shape_dtypes.get(shape, self.dtypes)))
        return tuple(d for d in wanted if d in self.dtypes)

    def variants(self, kernel, shape):
        table = self.kernels[kernel]
        variants = [Variant("own")]
        if self.tuned_config is not None:
            variants.append(Variant("tuned"))
        if shape in table.get("blocks_at", ["realistic"]):
            for sizes in table.get("blocks", []):
                variants.append(Variant("x".join(map(str, sizes)), tuple(sizes)))
        return variants


def _check_list(path, where, value, allowed):
    if not isinstance(value, list) or not all(v in allowed for v in value):
        raise MatrixError(f"{path}: {where} must be a list of {', '.join(allowed)}, "
                          f"got {value!r}")
    return tuple(value)


def _check_shapes(path, kernel, label, value):
    ok = isinstance(value, list) and all(
        isinstance(s, list) and all(isinstance(d, int) and d > 0 for d in s) for s in value)
    if not ok:
        raise MatrixError(f"{path}: kernels.{kernel}.{label} must be a list of shapes "
                          f"(lists of positive integers), got {value!r}")


def _check_kernel(path, name, table):
    unknown = set(table) - KERNEL_KEYS
    if unknown:
        raise MatrixError(f"{path}: kernels.{name}: unknown key(s) {sorted(unknown)} "
                          f"(known: {sorted(KERNEL_KEYS)})")
    if not (SOURCE_DIR / "examples" / f"{name}.py").exists():
        raise MatrixError(f"{path}: kernels.{name}: no examples/{name}.py")
    for label in SHAPE_LABELS:
        if label in table:
            _check_shapes(path, name, label, table[label])
    for key in ("dtypes", *sorted(SHAPE_DTYPE_KEYS)):
        if key in table:
            _check_list(path, f"kernels.{name}.{key}", table[key], DTYPES)
    for key in ("blocks_at", "baseline_at"):
        if key in table:
            _check_list(path, f"kernels.{name}.{key}", table[key], SHAPE_LABELS)
    if "blocks" in table:
        _check_shapes(path, name, "blocks", table["blocks"])
    if "baseline" in table and table["baseline"] not in BASELINE_NAMES:
        raise MatrixError(f"{path}: kernels.{name}.baseline must be one of "
                          f"{', '.join(BASELINE_NAMES)}, got {table['baseline']!r}")


def load_matrix(path):
    """Reads and checks a matrix file; raises MatrixError on any mistake."""
    path = pathlib.Path(path)
    try:
        data = tomllib.loads(path.read_text())
    except (OSError, tomllib.TOMLDecodeError) as error:
        raise MatrixError(f"{path}: {error}") from error
    axes = data.get("matrix", {})
    unknown = set(axes) - MATRIX_KEYS
    if unknown:
        raise MatrixError(f"{path}: [matrix]: unknown key(s) {sorted(unknown)} "
                          f"(known: {sorted(MATRIX_KEYS)})")
    kernels = data.get("kernels", {})
    if not kernels:
        raise MatrixError(f"{path}: no [kernels.<name>] table")
    for name, table in kernels.items():
        _check_kernel(path, name, table)
    tuned = axes.get("tuned_config")
    tuned_path = None
    if tuned:
        tuned_path = (SOURCE_DIR / tuned) if not pathlib.Path(tuned).is_absolute() \
            else pathlib.Path(tuned)
        tuned_path = tuned_path if tuned_path.exists() else None
    return Matrix(
        path=path,
        launchers=_check_list(path, "matrix.launchers",
                              axes.get("launchers", list(kernel_table.LAUNCHERS)),
                              kernel_table.LAUNCHERS),
        tpus=_check_list(path, "matrix.tpus", axes.get("tpus", list(TPUS)), TPUS),
        dtypes=_check_list(path, "matrix.dtypes", axes.get("dtypes", list(DTYPES)), DTYPES),
        shape_dtypes={label: _check_list(path, f"matrix.{label}_dtypes",
                                         axes[f"{label}_dtypes"], DTYPES)
                      for label in SHAPE_LABELS if f"{label}_dtypes" in axes},
        shapes=_check_list(path, "matrix.shapes", axes.get("shapes", list(SHAPE_LABELS)),
                           SHAPE_LABELS),
        compile_repeats=int(axes.get("compile_repeats", 3)),
        measure_warmup=int(axes.get("measure_warmup", 3)),
        measure_repeats=int(axes.get("measure_repeats", 20)),
        tuned_config=tuned_path,
        kernels=kernels)


def expand(matrix, kernels=None):
    """The matrix's jobs: a "cells" job per (kernel, shape, dtype, launcher,
    variant); a "correctness" job per (kernel, interpreted shape, dtype,
    launcher, variant) those cells report (a realistic cell reports the small
    shape's, with the same block sizes where the shape allows); a "baseline"
    job per (kernel, shape, dtype, variant) of a kernel with a hand-written
    JAX baseline."""
    jobs, correctness = [], {}
    for kernel in matrix.kernels:
        if kernels and kernel not in kernels:
            continue
        table = matrix.kernels[kernel]
        shapes = matrix.kernel_shapes(kernel)
        launchers = tuple(name for name in table.get("launchers", matrix.launchers)
                          if name in matrix.launchers)
        for shape in (s for s in matrix.shapes if s in shapes):
            for dtype, variant in itertools.product(matrix.kernel_dtypes(kernel, shape),
                                                    matrix.variants(kernel, shape)):
                has_baseline = bool(table.get("baseline")) and shape in table.get(
                    "baseline_at", ["realistic"])
                for launcher in launchers:
                    jobs.append(Job("cells", kernel, shape, shapes[shape], dtype,
                                    launcher, variant, matrix.tpus,
                                    compiled_by_baseline=has_baseline))
                    small = small_shape_for(shape)
                    if small in shapes:
                        check = Job("correctness", kernel, small, shapes[small], dtype,
                                    launcher, variant, matrix.tpus[:1])
                        correctness.setdefault(check.key, check)
                if table.get("baseline") and shape in table.get("baseline_at", ["realistic"]):
                    jobs.append(Job("baseline", kernel, shape, shapes[shape], dtype,
                                    ",".join(launchers), variant, matrix.tpus,
                                    baseline=table["baseline"]))
    return jobs + list(correctness.values())


def small_shape_for(shape):
    """The interpreted shape whose correctness a cell of `shape` reports."""
    return shape if shape in INTERPRETED_SHAPES else "small"
