"""Runs one job of the matrix (see spec.Job) and returns its records.

A "cells" job compiles one (kernel, shape, dtype, launcher, block variant)
for every TPU generation with the tessera CLI and fills one cell per
generation: in-process compile time, the cost model's report, the real TPU
compiler's verdict and code size, and the measured time where this host has
that TPU. A "correctness" job runs the generated kernel in interpret mode on
the CPU against examples/references.py. Jobs are plain data in, plain data
out, so that a local process pool and Ray run the same function.
"""
import functools
import json
import os
import pathlib
import re
import statistics
import subprocess
import time

import spec

NO_TPU = "no TPU"


def tpu_device_files():
    """The TPU chips this host exposes: /dev/accel* (v4, v5e) or /dev/vfio/N
    (v5p, v6e, v7x); empty without a TPU."""
    files = sorted(str(p) for p in pathlib.Path("/dev").glob("accel*"))
    files += sorted(str(p) for p in pathlib.Path("/dev/vfio").glob("*") if p.name.isdigit())
    return [] if os.environ.get("TESSERA_BENCH_NO_TPU") == "1" else files


@functools.lru_cache(maxsize=None)
def local_tpu():
    """The generation of this host's TPU ("v5e" ...), or None.

    Without TPU chips, libtpu is told not to look for one (scripts/
    verify_tpu.py's environment) before JAX loads it: only the deviceless
    compiles run. With chips, it finds them as usual and the deviceless
    topologies still compile for the other generations."""
    import verify_tpu
    if not tpu_device_files():
        verify_tpu.prepare_environment()
        return None
    import jax
    kinds = {"TPU v5 lite": "v5e", "TPU v5e": "v5e", "TPU v6 lite": "v6e",
             "TPU v6e": "v6e", "TPU7x": "v7x", "TPU v7x": "v7x"}
    devices = [d for d in jax.devices() if d.platform == "tpu"]
    return kinds.get(devices[0].device_kind, devices[0].device_kind) if devices else None


# --- The tessera CLI --------------------------------------------------------

def job_config(context, job, work_dir):
    """(config path, extra CLI flags) for the job's launcher and variant."""
    launcher_config = pathlib.Path(context["source_dir"]) / "configs" / f"pallas_{job.launcher}.toml"
    variant = job.variant
    if variant.label == "own":
        return launcher_config, []
    if variant.label == "tuned":
        tuned = pathlib.Path(context["tuned_config"])
        text = tuned.read_text()
        if "[pipeline]" in text:  # A whole pipeline: the cell's launcher still applies.
            return tuned, [f"--launcher={job.launcher}"]
        text = launcher_config.read_text() + "\n" + text
    else:
        sizes = ", ".join(str(b) for b in variant.block_sizes)
        text = launcher_config.read_text() + f"\n[kernels.{job.kernel}]\nblock_sizes = [{sizes}]\n"
    work_dir.mkdir(parents=True, exist_ok=True)
    path = work_dir / "config.toml"
    path.write_text(text)
    return path, []


def tessera(context, job, work_dir, shapes, tpu, extra):
    """Runs `tessera compile examples/<kernel>.py` with the job's config,
    argument types and generation; returns the CompletedProcess."""
    source_dir = pathlib.Path(context["source_dir"])
    config, flags = job_config(context, job, work_dir)
    names = kernel_parameters(str(source_dir), job.kernel)
    command = [context["tessera"], "compile", f"examples/{job.kernel}.py",
               f"--config={config}", f"--tpu={tpu}", *flags,
               *spec.kernel_table.arg_flags(names, shapes, spec.DTYPES[job.dtype],
                                            spec.kernel_table.SPECS.get(job.kernel)),
               *extra]
    return subprocess.run(command, cwd=source_dir, capture_output=True, text=True)


@functools.lru_cache(maxsize=None)
def kernel_parameters(source_dir, kernel):
    return spec.kernel_table.kernel_parameters(
        pathlib.Path(source_dir) / "examples" / f"{kernel}.py", kernel)


def first_error(result):
    lines = (result.stderr or result.stdout).strip().splitlines()
    return next((line for line in lines if "error" in line), lines[0] if lines else
                f"exit {result.returncode}")[:400]


def block_sizes(context, job, work_dir, shapes):
    """The block size of every tile loop, outer before inner, as the pipeline
    resolved them (the IR before any pass), or None when it does not parse."""
    result = tessera(context, job, work_dir, shapes, job.tpus[0], ["--emit=ir", "--passes="])
    if result.returncode != 0:
        return None
    return [int(b) for b in re.findall(r"\w+: tile<(\d+)>", result.stdout)]


def compile_module(context, job, work_dir, shapes, tpu, repeats):
    """Generates the module `repeats` times; returns (module path or None,
    error, compile-time samples: the --timing report's in-process total)."""
    out_dir = work_dir / tpu
    samples = []
    for _ in range(max(1, repeats)):
        result = tessera(context, job, work_dir, shapes, tpu,
                         ["--emit=code", "--timing", f"--output={out_dir}/"])
        if result.returncode != 0:
            return None, first_error(result), samples
        total = re.search(r"^\s*([\d.]+)\s+total\s*$", result.stderr, re.M)
        if total:
            samples.append(float(total.group(1)) / 1e3)
    modules = [m for m in sorted(out_dir.glob("*.py"))
               if f"def {job.kernel}(" in m.read_text()]
    if len(modules) != 1:
        return None, f"{len(modules)} generated modules define {job.kernel}()", samples
    return modules[0], "", samples


def model_report(context, job, work_dir, shapes, tpu):
    """The cost model's fields for the job's kernel (see docs/cost_model.md)."""
    result = tessera(context, job, work_dir, shapes, tpu,
                     ["--emit=report", "--report-format=json"])
    if result.returncode != 0:
        return {"model_error": first_error(result)}
    kernels = json.loads(result.stdout)["kernels"]
    report = next((k for k in kernels if k["kernel"] == job.kernel), kernels[0])
    grid = report["stages"][0] if report["stages"] else {}
    return {
        "launcher_used": report.get("launcher"),
        "modeled_s": report["time_s"],
        "bound": grid.get("bound"),
        "roofline_fraction": grid.get("roofline_fraction"),
        "vmem_peak_bytes": report["vmem_peak_bytes"],
        "vmem_limit_bytes": report["vmem_limit_bytes"],
        "flops": report["flops"],
        "transcendentals": report["transcendentals"],
        "bytes_accessed": report["bytes_accessed"],
        "arithmetic_intensity": report["flops"] / max(1, report["bytes_accessed"]),
        "grid_steps": grid.get("steps"),
        "model_notes": report.get("notes", []),
    }


# --- JAX: the real compiler, interpret mode, the TPU ------------------------

def load_generated(module_path):
    import conformance_lib
    name = "bench_" + re.sub(r"\W", "_", str(module_path))
    return conformance_lib.load_module(module_path, name)


def reads_host_scalars(module, kernel):
    """Whether the module's host function reads scalars from device memory
    (KERNEL_host_reads, backends/pallas_common/host_reads.h): it then jits
    its own launch, sized by values it reads from the inputs."""
    return hasattr(module, f"{kernel}_host_reads")


def compile_target(context, job, module_path, shapes):
    """What the real compiler takes: the kernel's host function, or for one
    that reads host scalars its jitted launch with the values read from
    inputs made as the conformance harness makes them."""
    import conformance_lib
    import kernel_table
    module = load_generated(module_path)
    if not reads_host_scalars(module, job.kernel):
        return getattr(module, job.kernel)
    arrays, _ = conformance_lib.make_kernel_inputs(
        context["source_dir"], job.kernel, kernel_table.SPECS[job.kernel], shapes,
        spec.DTYPES[job.dtype], seed=0)
    return conformance_lib.host_sync_launch(module, job.kernel, arrays)


def argument_specs(job, shapes):
    import jax.numpy as jnp
    return [(tuple(s), jnp.dtype(spec.DTYPES[job.dtype])) for s in shapes]


def real_compile(function, specs, tpu):
    """(verdict, detail, generated code bytes, seconds) from libtpu."""
    import verify_tpu
    start = time.perf_counter()
    try:
        compiled = verify_tpu.compile_tpu(function, specs, tpu)
    except Exception as error:  # The compiler's verdict is the cell's detail.
        return "FAIL", verify_tpu.compiler_error(error), None, time.perf_counter() - start
    stats = compiled.memory_analysis()
    code = stats.generated_code_size_in_bytes if stats is not None else None
    return "pass", verify_tpu.describe(compiled), code, time.perf_counter() - start


def measure(function, specs, warmup, repeats):
    """Times function on this host's TPU: `warmup` untimed calls, then
    `repeats` timed ones (each waited for with block_until_ready)."""
    import jax
    import numpy as np
    import conformance_lib
    arrays, _ = conformance_lib.make_inputs(specs, seed=0)
    device = next(d for d in jax.devices() if d.platform == "tpu")
    arrays = [jax.device_put(a, device) for a in arrays]
    jitted = jax.jit(function)
    for _ in range(max(1, warmup)):
        jax.block_until_ready(jitted(*arrays))
    times = []
    for _ in range(max(1, repeats)):
        start = time.perf_counter()
        jax.block_until_ready(jitted(*arrays))
        times.append(time.perf_counter() - start)
    q1, q3 = np.percentile(times, [25, 75])
    return {"measured_s": statistics.median(times), "measured_iqr_s": float(q3 - q1),
            "measured_runs": len(times)}


def measured_fields(context, function, specs, tpu, cell):
    here = local_tpu()
    if here is None or context.get("measure") == "off":
        return {"measured": NO_TPU if here is None else "off"}
    if here != tpu:
        return {"measured": f"host TPU is {here}"}
    if cell.get("tpu_compile") != "pass":
        return {"measured": "not compiled"}
    try:
        fields = measure(function, specs, context["measure_warmup"], context["measure_repeats"])
    except Exception as error:  # A kernel that fails on the chip is a red cell.
        return {"measured": f"FAIL: {str(error).splitlines()[0][:300]}"}
    fields["measured"] = "ok"
    if cell.get("roofline_fraction") and cell.get("modeled_s"):
        roofline_s = cell["roofline_fraction"] * cell["modeled_s"]
        fields["measured_roofline_fraction"] = roofline_s / fields["measured_s"]
    return fields


def job_fields(job):
    return {"kernel": job.kernel, "shape": job.shape,
            "shapes": [list(s) for s in job.shapes], "dtype": job.dtype,
            "launcher": job.launcher, "variant": job.variant.label,
            "variant_block_sizes": list(job.variant.block_sizes or []) or None}


def run_cells(job, context, work_dir):
    blocks = block_sizes(context, job, work_dir, job.shapes)
    cells = []
    for tpu in job.tpus:
        cell = dict(job_fields(job), tpu=tpu, block_sizes=blocks)
        module, error, samples = compile_module(
            context, job, work_dir, job.shapes, tpu, context["compile_repeats"])
        cell["compile_time_s"] = statistics.median(samples) if samples else None
        cell["compile_time_samples_s"] = samples
        cell["compile"] = "pass" if module else "FAIL"
        cell["compile_error"] = error
        if module is None:
            cell.update(tpu_compile="blocked", measured="not compiled")
            cells.append(cell)
            continue
        cell["module_bytes"] = module.stat().st_size
        cell.update(model_report(context, job, work_dir, job.shapes, tpu))
        if job.compiled_by_baseline and local_tpu() is None:
            cell.update(tpu_compile=spec.COMPILED_BY_BASELINE, measured=NO_TPU)
            cells.append(cell)
            continue
        specs = argument_specs(job, job.shapes)
        try:
            function = compile_target(context, job, module, job.shapes)
        except Exception as error:  # An unimportable module is a red cell.
            cell.update(tpu_compile="FAIL", tpu_compile_detail=f"import: {error}",
                        measured="not compiled")
            cells.append(cell)
            continue
        verdict, detail, code, seconds = real_compile(function, specs, tpu)
        cell.update(tpu_compile=verdict, tpu_compile_detail=detail, code_bytes=code,
                    tpu_compile_s=seconds)
        cell.update(measured_fields(context, function, specs, tpu, cell))
        cells.append(cell)
    return cells


def run_correctness(job, context, work_dir):
    """Interpret mode (interpret=True) on the CPU vs the float64 reference."""
    import conformance_lib
    record = dict(job_fields(job), kind="correctness")
    start = time.perf_counter()
    module, error, _ = compile_module(context, job, work_dir, job.shapes, job.tpus[0], 1)
    if module is None:
        return [dict(record, correct="blocked", correct_detail=f"compile: {error}")]
    reference = getattr(conformance_lib.load_module(
        pathlib.Path(context["source_dir"]) / "examples" / "references.py",
        "bench_references"), job.kernel)
    import kernel_table
    generated = load_generated(module)
    # Offsets and indices get valid integer values (INTEGER_ARGS), as in
    # the conformance harness; the float tensors standard normals.
    arrays, exact = conformance_lib.make_kernel_inputs(
        context["source_dir"], job.kernel, kernel_table.SPECS[job.kernel],
        job.shapes, spec.DTYPES[job.dtype], seed=0)
    cell = conformance_lib.timed(lambda: conformance_lib.compare(
        conformance_lib.run_interpret(getattr(generated, job.kernel), arrays,
                                      "interpret", provide_tpu=False,
                                      eager=reads_host_scalars(generated, job.kernel)),
        reference(*exact)))
    return [dict(record, correct=cell.status, correct_detail=cell.detail,
                 correct_s=time.perf_counter() - start)]


def run_job(job, context):
    """Runs one job; returns a list of records (dicts). Never raises for a
    failing kernel: its cells say what failed."""
    start = time.perf_counter()
    local_tpu()
    work_dir = pathlib.Path(context["work_dir"]) / re.sub(r"[^\w.-]", "_", job.key)
    work_dir.mkdir(parents=True, exist_ok=True)
    if job.kind == "cells":
        records = run_cells(job, context, work_dir)
    elif job.kind == "correctness":
        records = run_correctness(job, context, work_dir)
    else:
        import baselines
        records = baselines.run_baseline_job(job, context, work_dir)
    seconds = time.perf_counter() - start
    return [dict(r, job=job.key, job_s=seconds) for r in records]
