"""Unit tests of the benchmark matrix's pure parts (no compiler, no JAX):
matrix files and their mistakes, job expansion, merging records into cells,
the best launcher, --compare, the Ray resource request and reading the
compiler's VMEM from a schedule dump."""
import pathlib
import sys
import tempfile
import unittest

HERE = pathlib.Path(__file__).resolve().parent
SOURCE_DIR = HERE.parents[1]
sys.path[:0] = [str(SOURCE_DIR / "bench" / "matrix"), str(SOURCE_DIR / "scripts"),
                str(SOURCE_DIR / "tests" / "cost_model"), str(SOURCE_DIR / "bench" / "gpu")]
import baselines  # noqa: E402
import compare  # noqa: E402
import executor  # noqa: E402
import gpu_column  # noqa: E402
import kernel_times  # noqa: E402
import report  # noqa: E402
import spec  # noqa: E402


def write(directory, text):
    path = pathlib.Path(directory) / "matrix.toml"
    path.write_text(text)
    return path


def cell(**fields):
    base = {"kernel": "matmul", "shape": "small", "dtype": "bf16", "launcher": "unroll",
            "variant": "own", "tpu": "v6e", "tpu_compile": "pass", "modeled_s": 1e-6,
            "shapes": [[256, 256], [256, 256]]}
    return dict(base, **fields)


class MatrixFileTest(unittest.TestCase):
    def test_default_matrix_covers_every_example(self):
        matrix = spec.load_matrix(SOURCE_DIR / "bench" / "matrix.toml")
        examples = set(spec.kernel_table.KERNELS)
        self.assertEqual(set(matrix.kernels), examples)
        for kernel in examples:
            self.assertEqual(set(matrix.kernel_shapes(kernel)), set(spec.SHAPE_LABELS), kernel)

    def test_mistakes_are_errors_that_name_the_key(self):
        cases = {
            "[matrix]\nlaunchers = ['unrolled']\n[kernels.add]\n": "matrix.launchers",
            "[matrix]\ncolour = 1\n[kernels.add]\n": "colour",
            "[kernels.add]\nsmall = [[0, 4]]\n": "kernels.add.small",
            "[kernels.nope]\n": "examples/nope.py",
            "[kernels.add]\nbaseline = 'cublas'\n": "kernels.add.baseline",
            "[matrix]\n": "no [kernels",
            "[kernels.add\n": "matrix.toml",
        }
        with tempfile.TemporaryDirectory() as tmp:
            for text, needle in cases.items():
                with self.assertRaises(spec.MatrixError, msg=text) as raised:
                    spec.load_matrix(write(tmp, text))
                self.assertIn(needle, str(raised.exception))

    def test_expansion(self):
        with tempfile.TemporaryDirectory() as tmp:
            matrix = spec.load_matrix(write(tmp, (
                "[matrix]\nlaunchers = ['unroll', 'fori_loop']\ntpus = ['v5e', 'v7x']\n"
                "dtypes = ['f32', 'bf16']\nrealistic_dtypes = ['bf16']\n"
                "[kernels.matmul]\nrealistic = [[512, 512], [512, 512]]\n"
                "blocks = [[256, 256, 256]]\nbaseline = 'matmul'\n")))
        jobs = spec.expand(matrix)
        cells = [j for j in jobs if j.kind == "cells"]
        # small, ragged: 2 dtypes x 2 launchers; realistic: bf16 x 2 variants x 2 launchers.
        self.assertEqual(len(cells), 2 * 2 * 2 + 1 * 2 * 2)
        self.assertTrue(all(j.tpus == ("v5e", "v7x") for j in cells))
        checks = {(j.shape, j.dtype, j.launcher, j.variant.label)
                  for j in jobs if j.kind == "correctness"}
        # The realistic 256-block cells are checked at the small shape with those blocks.
        self.assertIn(("small", "bf16", "unroll", "256x256x256"), checks)
        self.assertNotIn(("realistic", "bf16", "unroll", "own"), checks)
        baseline = [j for j in jobs if j.kind == "baseline"]
        self.assertEqual([(j.shape, j.variant.label) for j in baseline],
                         [("realistic", "own"), ("realistic", "256x256x256")])


class ReportTest(unittest.TestCase):
    def test_merge_fills_correctness_and_schedule(self):
        records = [
            cell(shape="realistic"),
            {"kind": "correctness", "kernel": "matmul", "shape": "small", "dtype": "bf16",
             "launcher": "unroll", "variant": "own", "correct": "FAIL", "correct_detail": "x"},
            dict(cell(shape="realistic"), kind="schedule", bundles_per_step=316, static_s=2e-6),
        ]
        (merged,) = report.merge(records)
        self.assertEqual((merged["correct"], merged["correct_shape"]), ("FAIL", "small"))
        self.assertEqual(merged["bundles_per_step"], 316)

    def test_merge_takes_the_verdict_from_the_baseline_job(self):
        waiting = cell(tpu_compile=spec.COMPILED_BY_BASELINE)
        compiled = dict(cell(), kind="schedule", tpu_compile="pass", code_bytes=4096,
                        tpu_compile_detail="ok", bundles_per_step=316)
        (merged,) = report.merge([waiting, compiled])
        self.assertEqual((merged["tpu_compile"], merged["code_bytes"]), ("pass", 4096))
        (orphan,) = report.merge([cell(tpu_compile=spec.COMPILED_BY_BASELINE)])
        self.assertEqual(orphan["tpu_compile"], "FAIL")

    def test_cells_with_a_baseline_leave_the_compile_to_it(self):
        matrix = spec.load_matrix(SOURCE_DIR / "bench" / "matrix.toml")
        jobs = spec.expand(matrix, ["matmul", "add"])
        flagged = {(j.kernel, j.shape) for j in jobs if j.kind == "cells" and j.compiled_by_baseline}
        self.assertEqual(flagged, {("matmul", "small"), ("matmul", "realistic")})

    def test_best_launcher_skips_what_the_compiler_rejects(self):
        cells = [cell(launcher="unroll", modeled_s=3e-6),
                 cell(launcher="fori_loop", modeled_s=1e-6, tpu_compile="FAIL"),
                 cell(launcher="emit_pipeline", modeled_s=2e-6),
                 cell(launcher="baseline:matmul", modeled_s=None, static_s=1e-7)]
        best = report.best_launchers(cells)
        self.assertEqual(best[("matmul", "small", "bf16", "own", "v6e")], "emit_pipeline")

    def test_baseline_summary(self):
        cells = [cell(launcher="unroll", static_s=2e-6), cell(launcher="fori_loop", static_s=4e-6),
                 cell(launcher="baseline:matmul", static_s=1e-6)]
        (row,) = report.baseline_summary(cells)
        self.assertEqual((row["best_launcher"], row["static_ratio"]), ("unroll", 2.0))


class CompareTest(unittest.TestCase):
    def test_changes(self):
        old = [cell(), cell(launcher="fori_loop"), cell(launcher="emit_pipeline")]
        new = [cell(modeled_s=2e-6), cell(launcher="fori_loop", tpu_compile="FAIL"),
               cell(launcher="emit_pipeline", modeled_s=1.01e-6), cell(tpu="v7x")]
        rows = {compare.label(key): moved for key, moved, _ in compare.changes(old, new)}
        self.assertEqual(rows["matmul small bf16 unroll own v6e"], {"modeled_s": (1e-6, 2e-6)})
        self.assertEqual(rows["matmul small bf16 fori_loop own v6e"],
                         {"tpu_compile": ("pass", "FAIL")})
        self.assertNotIn("matmul small bf16 emit_pipeline own v6e", rows)  # within 2 %
        self.assertEqual(rows["matmul small bf16 unroll own v7x"], {"cell": ("-", "present")})
        self.assertEqual(compare.changes(old, old), [])


class ExecutorTest(unittest.TestCase):
    def test_ray_resources(self):
        fields = ("add", "small", ((8, 128),), "f32", "unroll", spec.Variant("own"), ("v6e",))
        job, check = spec.Job("cells", *fields), spec.Job("correctness", *fields)
        tpu_cluster, cpu_cluster = {"CPU": 8, "TPU": 4}, {"CPU": 8}
        self.assertEqual(executor.ray_resources(job, tpu_cluster, "auto")["resources"], {"TPU": 1})
        self.assertEqual(executor.ray_resources(job, cpu_cluster, "auto")["resources"], {})
        self.assertEqual(executor.ray_resources(job, tpu_cluster, "off")["resources"], {})
        self.assertEqual(executor.ray_resources(check, tpu_cluster, "auto")["resources"], {})


class DumpTest(unittest.TestCase):
    def test_compiler_vmem_is_the_end_of_the_last_allocation(self):
        with tempfile.TemporaryDirectory() as tmp:
            dump = pathlib.Path(tmp)
            (dump / "7-k.1-71-final_bundles.txt").write_text("0 LB: vsyncpa\n")
            (dump / "7-k.1-68-post-delay-converter.txt").write_text(
                "#allocation2 [shape = 'f32[8,128]', space=vmem, size = 0x1000, offset = 0, s]\n"
                "#allocation3 [shape = 'u8[4096]', space=vmem, size = 0x2000, offset = 0x1000, s]\n")
            (dump / "7-k.1-54-post-scalar.txt").write_text(
                "#allocation9 [shape = 'u8[1]', space=vmem, size = 0x9000, scoped]\n")
            self.assertEqual(baselines.compiler_vmem_bytes(dump), 0x3000)
            (dump / "7-k.1-71-final_bundles.txt").write_text("no kernel here\n")
            self.assertIsNone(baselines.compiler_vmem_bytes(dump))


class GpuColumnTest(unittest.TestCase):
    def test_committed_results_summarize(self):
        document = gpu_column.load(gpu_column.default_results())
        text = "\n".join(gpu_column.markdown_lines(document))
        for kernel in ("matmul", "attention", "add", "softmax", "layer_norm", "rms_norm"):
            self.assertIn(f"| {kernel} | ", text)
        self.assertIn("| tessera >= 80% of xla |", text)

    def test_best_variant_and_helion_at_the_same_config(self):
        entry = {"kernel": "matmul", "results": [
            {"candidate": "tessera", "config": "a", "median_us": 3.0, "tflops": 1.0},
            {"candidate": "tessera", "config": "b", "median_us": 2.0, "tflops": 1.5},
            {"candidate": "helion", "config": "a", "median_us": 1.0, "tflops": 3.0},
            {"candidate": "helion", "config": "b", "median_us": 1.5, "tflops": 2.0},
            {"candidate": "tessera_mosaic", "config": "c", "error": "failed"}]}
        best = gpu_column.best_results(entry)
        self.assertEqual(best["tessera"]["config"], "b")
        self.assertEqual(best["helion"]["config"], "b")
        self.assertNotIn("tessera_mosaic", best)


class KernelTimesTest(unittest.TestCase):
    """kernel_times.py credits each profiled GPU kernel to the candidate
    whose markers enclose it; the first kernel's compiles (before any
    marker) and a later kernel's (between two kernels) are nobody's."""

    def test_kernels_between_markers_go_to_their_candidate(self):
        profiled = [("jax_startup", 5), ("spin_kernel", 1000),
                    ("_add_kernel", 100000), ("_add_kernel", 120000), ("_add_kernel", 90000),
                    ("spin_kernel", 1000), ("wrapped_add", "91,000"),
                    ("spin_kernel", 1000), ("_softmax_kernel", 1), ("fusion_5", 2),
                    ("spin_kernel", 1000), ("_softmax_kernel", 70000),
                    ("spin_kernel", 1000)]
        rows = [{"Kernel Name": name, "Metric Value": str(ns)} for name, ns in profiled]
        order = [{"kernel": "add", "variant": "b", "candidate": "tessera"},
                 {"kernel": "add", "variant": "b", "candidate": "xla"},
                 {"compiles": "softmax"},
                 {"kernel": "softmax", "variant": "b1", "candidate": "tessera"}]
        entries = kernel_times.report(order, rows)
        self.assertEqual([e["candidate"] for e in entries], ["tessera", "xla", "tessera"])
        self.assertEqual(entries[0]["gpu_kernels"],
                         [{"name": "_add_kernel", "launches": 3, "median_us": 100.0}])
        self.assertEqual(entries[1]["gpu_kernels"][0]["median_us"], 91.0)
        self.assertEqual(entries[2]["gpu_kernels"],
                         [{"name": "_softmax_kernel", "launches": 1, "median_us": 70.0}])
        text = kernel_times.markdown(entries, "NVIDIA H200")
        self.assertIn("| add | b | tessera | `_add_kernel` | 3 | 100.0 |", text)


if __name__ == "__main__":
    unittest.main()
