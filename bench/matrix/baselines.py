"""Hand-written baselines: JAX's own Pallas TPU kernels
(jax.experimental.pallas.ops.tpu) where one computes what an example does,
at the example's block sizes, next to ours in the real compiler's terms.

A "baseline" job runs in a fresh Python process (this file as a script):
libtpu reads LIBTPU_INIT_ARGS once, when it loads, and the static schedule
it writes with --xla_jf_dump_to (tens of MB per kernel) is wanted only here.
For every generation it compiles the baseline and our kernel under each
launcher and reads from the dump what tests/cost_model/schedule_check.py
reads (docs/cost_model.md, "Calibration 2"): the bundles of one grid step
(`*final_bundles.txt`, the grid loop's body), and the VMEM the compiler
allocated (the kernel's `space=vmem` allocations). bundles x grid steps /
clock is the step's static time: exact for a straight-line step (the
`unroll` launcher, the baselines); a step with an inner loop
(emit_pipeline, fori_loop) counts that loop's body once.
"""
import glob
import json
import math
import os
import pathlib
import re
import shutil
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
SOURCE_DIR = HERE.parents[1]
sys.path[:0] = [str(HERE), str(SOURCE_DIR / "scripts"), str(SOURCE_DIR / "tests" / "conformance"),
                str(SOURCE_DIR / "tests" / "cost_model")]
import spec  # noqa: E402


def _matmul(shapes, dtype, blocks):
    (m, k), (k2, n) = shapes
    if len(blocks) != 3:
        return None, f"block sizes {blocks} are not [bm, bn, bk]"
    bm, bn, bk = blocks
    if m % bm or n % bn or k % bk:
        return None, f"the baseline needs whole blocks ({m}x{k}x{n} by {bm}x{bn}x{bk})"
    from jax.experimental.pallas.ops.tpu import matmul
    grid_steps = (m // bm) * (n // bn) * (k // bk)
    return (lambda x, y: matmul.matmul(x, y, block_shape=(bm, bn), block_k=bk)), grid_steps


def _flash_attention(shapes, dtype, blocks):
    batch, heads, seq, head_dim = shapes[0]
    if len(blocks) != 3 or blocks[0] != 1:
        return None, f"block sizes {blocks} are not [1, block_q, block_k]"
    _, bq, bk = blocks
    if seq % bq or seq % bk:
        return None, f"the baseline needs whole blocks (sequence {seq} by {bq}, {bk})"
    from jax.experimental.pallas.ops.tpu import flash_attention as fa
    sizes = fa.BlockSizes(block_q=bq, block_k_major=bk, block_k=bk, block_b=1)
    scale = 1.0 / math.sqrt(head_dim)
    grid_steps = batch * heads * (seq // bq) * (seq // bk)
    return (lambda q, k, v: fa.flash_attention(q, k, v, sm_scale=scale,
                                               block_sizes=sizes)), grid_steps


# name in matrix.toml -> (builder, the example kernel it computes the same as)
BASELINES = {"matmul": (_matmul, "matmul"), "flash_attention": (_flash_attention, "attention")}


def kernel_prefix(dump_dir):
    """The dump's file-name prefix of the Pallas kernel (the schedule that
    waits on DMA semaphores), or None."""
    kernel = next((p for p in pathlib.Path(dump_dir).glob("*final_bundles.txt")
                   if "schedule-analysis" not in p.name
                   and "vsyncpa" in p.read_text(errors="replace")), None)
    return None if kernel is None else re.sub(r"-\d+-final_bundles\.txt$", "", kernel.name)


def total_bundles(dump_dir):
    """All scheduled bundles of the kernel (its schedule analysis): one grid
    step when the grid has one step and so no loop."""
    prefix = kernel_prefix(dump_dir)
    for path in pathlib.Path(dump_dir).glob(f"{glob.escape(prefix or '?')}-*schedule-analysis_final_bundles.txt"):
        match = re.search(r"total scheduled bundles:\s+(\d+)", path.read_text(errors="replace"))
        if match:
            return int(match.group(1))
    return None


def compiler_vmem_bytes(dump_dir):
    """The VMEM the compiler allocated for the kernel: the sizes of its
    distinct `space=vmem` allocations (pipeline buffers, scratch, internal
    scratch) in the latest pass dump that lists them with their offsets
    (placed allocations; earlier passes also list ones that get merged)."""
    prefix = kernel_prefix(dump_dir)
    if prefix is None:
        return None
    numbered = []
    for path in pathlib.Path(dump_dir).glob(f"{glob.escape(prefix)}-*.txt"):
        match = re.match(re.escape(prefix) + r"-(\d+)-", path.name)
        if match:
            numbered.append((int(match.group(1)), path))
    for _, path in sorted(numbered, reverse=True):
        sizes = dict(re.findall(
            r"#(allocation\d+) \[shape = '[^']*', space=vmem, size = (0x[0-9a-f]+), offset = ",
            path.read_text(errors="replace")))
        if sizes:
            return sum(int(size, 16) for size in sizes.values())
    return None


def schedule_fields(dump_dir, tpu, grid_steps, straight_line=True):
    """bundles per grid step, compiler VMEM, and (for a straight-line step,
    where bundles x steps is the whole kernel) the static time."""
    import schedule_check
    bundles = schedule_check.loop_body_bundles(str(dump_dir))
    if bundles is None and grid_steps == 1:
        bundles = total_bundles(dump_dir)
    fields = {"bundles_per_step": bundles, "compiler_vmem_bytes": compiler_vmem_bytes(dump_dir)}
    if bundles and grid_steps and straight_line:
        fields["static_s"] = bundles * grid_steps / schedule_check.clock_hz(SOURCE_DIR, tpu)
    return fields


class Dump:
    """Moves what libtpu dumped since the last take() into its own folder."""

    def __init__(self, root):
        self.root = pathlib.Path(root)
        self.root.mkdir(parents=True, exist_ok=True)

    def take(self, name):
        target = self.root.parent / f"{self.root.name}.{name}"
        shutil.rmtree(target, ignore_errors=True)
        target.mkdir(parents=True)
        for path in self.root.iterdir():
            shutil.move(str(path), target / path.name)
        return target


def baseline_correctness(function, job, context):
    """The baseline at the job's (small) shape in TPU interpret mode vs the
    example's NumPy reference: proof that it computes the same thing."""
    import conformance_lib
    import jax
    from jax.experimental.pallas import tpu as pltpu
    reference = getattr(conformance_lib.load_module(
        SOURCE_DIR / "examples" / "references.py", "bench_references"), BASELINES[job.baseline][1])
    specs = [(tuple(s), spec.DTYPES[job.dtype]) for s in job.shapes]
    arrays, exact = conformance_lib.make_inputs(specs, seed=0)

    def check():
        with pltpu.force_tpu_interpret_mode(), conformance_lib.on_abstract_tpu():
            out = jax.block_until_ready(jax.jit(function)(*arrays))
        return conformance_lib.compare(out, reference(*exact))
    cell = conformance_lib.timed(check)
    return cell.status, cell.detail


def run_in_process(job, context, work_dir):
    import jobs
    dump = Dump(work_dir / "dump")
    builder, example = BASELINES[job.baseline]
    specs = jobs.argument_specs(job, job.shapes)
    records = []
    for tpu in job.tpus:
        ours_job = job.__class__("cells", job.kernel, job.shape, job.shapes, job.dtype,
                                 job.launcher.split(",")[0], job.variant, (tpu,))
        blocks = jobs.block_sizes(context, ours_job, work_dir, job.shapes)
        cell = dict(jobs.job_fields(job), tpu=tpu, launcher=f"baseline:{job.baseline}",
                    block_sizes=blocks, kind="cell")
        function, steps = builder(job.shapes, job.dtype, blocks or [])
        if function is None:
            records.append(dict(cell, tpu_compile="n/a", tpu_compile_detail=steps,
                                measured="n/a"))
            continue
        dump.take("stale")
        verdict, detail, code, seconds = jobs.real_compile(function, specs, tpu)
        cell.update(tpu_compile=verdict, tpu_compile_detail=detail, code_bytes=code,
                    tpu_compile_s=seconds, grid_steps=steps)
        if verdict == "pass":
            cell.update(schedule_fields(dump.take(f"baseline.{tpu}"), tpu, steps))
        cell.update(jobs.measured_fields(context, function, specs, tpu, cell))
        if job.shape in spec.INTERPRETED_SHAPES:
            cell["correct"], cell["correct_detail"] = baseline_correctness(function, job, context)
        records.append(cell)
        for launcher in job.launcher.split(","):
            ours = job.__class__("cells", job.kernel, job.shape, job.shapes, job.dtype,
                                 launcher, job.variant, (tpu,))
            record = dict(jobs.job_fields(ours), tpu=tpu, kind="schedule")
            module, error, _ = jobs.compile_module(context, ours, work_dir / launcher,
                                                   job.shapes, tpu, 1)
            if module is None:
                records.append(dict(record, schedule_error=error))
                continue
            model = jobs.model_report(context, ours, work_dir / launcher, job.shapes, tpu)
            dump.take("stale")
            verdict, detail, code, seconds = jobs.real_compile(
                getattr(jobs.load_generated(module), job.kernel), specs, tpu)
            # The cells job of this module leaves its verdict to this one.
            record.update(tpu_compile=verdict, tpu_compile_detail=detail,
                          code_bytes=code, tpu_compile_s=seconds)
            if verdict != "pass":
                records.append(dict(record, schedule_error=detail))
                continue
            records.append(dict(record, **schedule_fields(
                dump.take(f"{launcher}.{tpu}"), tpu, model.get("grid_steps"),
                straight_line=launcher == "unroll")))
    shutil.rmtree(work_dir / "dump", ignore_errors=True)
    for stale in work_dir.glob("dump.*"):
        shutil.rmtree(stale, ignore_errors=True)
    return records


def run_baseline_job(job, context, work_dir):
    """Runs the job in a fresh process with the compiler's dump turned on."""
    request = work_dir / "job.json"
    (work_dir / "records.json").unlink(missing_ok=True)
    request.write_text(json.dumps({"job": job_to_dict(job), "context": context}))
    env = dict(os.environ)
    env["LIBTPU_INIT_ARGS"] = (env.get("LIBTPU_INIT_ARGS", "") + " " +
                               " ".join(dump_flags(work_dir / "dump"))).strip()
    result = subprocess.run([sys.executable, __file__, str(request)], env=env,
                            capture_output=True, text=True)
    answer = work_dir / "records.json"
    if result.returncode != 0 or not answer.exists():
        tail = (result.stderr or result.stdout).strip().splitlines()[-3:]
        import jobs
        return [dict(jobs.job_fields(job), tpu=tpu, kind="cell",
                     launcher=f"baseline:{job.baseline}", tpu_compile="FAIL",
                     tpu_compile_detail="baseline job failed: " + " | ".join(tail))
                for tpu in job.tpus]
    return json.loads(answer.read_text())


def dump_flags(dump_dir):
    """libtpu flags that dump only what schedule_fields() reads: the final
    bundles and their utilization, and the last pass that lists the placed
    VMEM allocations (post-delay-converter). The whole dump is ~300 files
    and tens of MB per kernel; this one ~20 files and 2 MB, and the compile
    takes about a third less time."""
    return [f"--xla_jf_dump_to={dump_dir}",
            "--xla_jf_dump_llo_pass_label_regex=final|post-delay-converter",
            "--xla_jf_dump_hlo_text=false"]


def job_to_dict(job):
    return {"kind": job.kind, "kernel": job.kernel, "shape": job.shape,
            "shapes": [list(s) for s in job.shapes], "dtype": job.dtype,
            "launcher": job.launcher, "variant": [job.variant.label,
                                                  list(job.variant.block_sizes or [])],
            "tpus": list(job.tpus), "baseline": job.baseline}


def job_from_dict(data):
    label, sizes = data["variant"]
    return spec.Job(data["kind"], data["kernel"], data["shape"],
                    tuple(tuple(s) for s in data["shapes"]), data["dtype"], data["launcher"],
                    spec.Variant(label, tuple(sizes) or None), tuple(data["tpus"]),
                    baseline=data["baseline"])


def main(request_path):
    import jobs
    request_path = pathlib.Path(request_path)
    request = json.loads(request_path.read_text())
    jobs.local_tpu()
    records = run_in_process(job_from_dict(request["job"]), request["context"],
                             request_path.parent)
    (request_path.parent / "records.json").write_text(json.dumps(records))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
