"""The run's results: cells merged from the jobs' records, written as
results.json, results.csv and matrix.md."""
import csv
import datetime
import importlib.metadata
import json
import os
import platform
import subprocess

import spec

# The CSV's columns, in order (results.json has every field).
CSV_COLUMNS = (
    "kernel", "shape", "shapes", "dtype", "launcher", "variant", "block_sizes", "tpu",
    "compile", "compile_time_s", "modeled_s", "bound", "roofline_fraction",
    "vmem_peak_bytes", "vmem_limit_bytes", "flops", "bytes_accessed",
    "arithmetic_intensity", "grid_steps", "tpu_compile", "tpu_compile_detail",
    "code_bytes", "module_bytes", "correct", "correct_shape", "correct_detail",
    "bundles_per_step", "compiler_vmem_bytes", "static_s", "measured", "measured_s",
    "measured_iqr_s", "measured_roofline_fraction", "compile_error", "model_error",
)
CELL_KEY = ("kernel", "shape", "dtype", "launcher", "variant", "tpu")


def cell_key(record):
    return tuple(record.get(k) for k in CELL_KEY)


def is_baseline(cell):
    return cell["launcher"].startswith("baseline:")


def merge(records):
    """Cells with their correctness (the interpreted shape's) and the static
    schedule (where a baseline job compiled them with the dump) filled in."""
    cells, checks, schedules = [], {}, {}
    for record in records:
        kind = record.get("kind", "cell")
        if kind == "correctness":
            checks[(record["kernel"], record["shape"], record["dtype"], record["launcher"],
                    record["variant"])] = record
        elif kind == "schedule":
            schedules[cell_key(record)] = record
        else:
            cells.append(dict(record, kind="cell"))
    for cell in cells:
        if not is_baseline(cell):
            small = spec.small_shape_for(cell["shape"])
            check = checks.get((cell["kernel"], small, cell["dtype"], cell["launcher"],
                                cell["variant"]))
            if check is not None:
                cell.update(correct=check["correct"], correct_detail=check["correct_detail"],
                            correct_shape=small)
            else:
                cell.setdefault("correct", "n/a")
        elif "correct" in cell:
            cell["correct_shape"] = cell["shape"]
        schedule = schedules.get(cell_key(cell))
        if cell.get("tpu_compile") == spec.COMPILED_BY_BASELINE:
            # The baseline job compiled this cell's module (spec.Job.
            # compiled_by_baseline); no schedule record: it never ran.
            found = schedule is not None and "tpu_compile" in schedule
            for field in ("tpu_compile", "tpu_compile_detail", "code_bytes", "tpu_compile_s"):
                if found and field in schedule:
                    cell[field] = schedule[field]
            if not found:
                cell.update(tpu_compile="FAIL",
                            tpu_compile_detail="the baseline job that compiles it failed")
        if schedule is not None:
            for field in ("bundles_per_step", "compiler_vmem_bytes", "static_s",
                          "schedule_error"):
                if field in schedule:
                    cell[field] = schedule[field]
    cells.sort(key=lambda c: (c["kernel"], spec.SHAPE_LABELS.index(c["shape"]), c["dtype"],
                              c["variant"], c["tpu"], is_baseline(c), c["launcher"]))
    return cells


def _version(package):
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return None


def _run(command, cwd):
    try:
        result = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=30)
    except OSError:
        return None
    return result.stdout.strip() if result.returncode == 0 else None


def environment(context):
    source_dir = context["source_dir"]
    status = _run(["git", "status", "--porcelain", "--untracked-files=no"], source_dir)
    return {
        "machine": {"host": platform.node(), "platform": platform.platform(),
                    "processor": platform.processor() or platform.machine(),
                    "cpus": os.cpu_count(), "tpu": context.get("local_tpu")},
        "versions": {"python": platform.python_version(),
                     "tessera": _run([context["tessera"], "--version"], source_dir),
                     **{p: _version(p) for p in ("jax", "jaxlib", "libtpu", "numpy",
                                                 "matplotlib", "ray")}},
        "git": {"revision": _run(["git", "rev-parse", "HEAD"], source_dir),
                "dirty": bool(status) if status is not None else None},
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
    }


def best_launchers(cells):
    """{(kernel, shape, dtype, variant, tpu): launcher} with the lowest
    modeled time among our cells the real compiler accepts."""
    best = {}
    for cell in cells:
        if is_baseline(cell) or cell.get("tpu_compile") != "pass" or not cell.get("modeled_s"):
            continue
        group = (cell["kernel"], cell["shape"], cell["dtype"], cell["variant"], cell["tpu"])
        time_s = cell.get("measured_s") or cell["modeled_s"]
        if group not in best or time_s < best[group][1]:
            best[group] = (cell["launcher"], time_s)
    return {group: launcher for group, (launcher, _) in best.items()}


def baseline_summary(cells):
    """Per kernel and generation: our best launcher against the hand-written
    baseline at the same shape, dtype and blocks (static schedule time,
    compiler VMEM, measured time where there is one)."""
    rows, by_group, fastest = [], {}, best_launchers(cells)
    for cell in cells:
        group = (cell["kernel"], cell["shape"], cell["dtype"], cell["variant"], cell["tpu"])
        by_group.setdefault(group, []).append(cell)
    for group, members in by_group.items():
        baseline = next((c for c in members if is_baseline(c)), None)
        ours = [c for c in members if not is_baseline(c) and c.get("static_s")]
        if baseline is None or not baseline.get("static_s") or not ours:
            continue
        best = min(ours, key=lambda c: c["static_s"])
        row = {"kernel": group[0], "shape": group[1], "dtype": group[2], "variant": group[3],
               "tpu": group[4], "baseline": baseline["launcher"],
               "best_launcher": best["launcher"], "ours_static_s": best["static_s"],
               "best_modeled_launcher": fastest.get(group),
               "baseline_static_s": baseline["static_s"],
               "static_ratio": best["static_s"] / baseline["static_s"],
               "ours_vmem_bytes": best.get("compiler_vmem_bytes"),
               "baseline_vmem_bytes": baseline.get("compiler_vmem_bytes"),
               "ours_bundles_per_step": best.get("bundles_per_step"),
               "baseline_bundles_per_step": baseline.get("bundles_per_step")}
        if best.get("measured_s") and baseline.get("measured_s"):
            row["measured_ratio"] = best["measured_s"] / baseline["measured_s"]
        rows.append(row)
    return rows


def write_json(path, cells, env, extra):
    document = dict(env, **extra, cells=cells, baselines=baseline_summary(cells))
    path.write_text(json.dumps(document, indent=1, sort_keys=False) + "\n")


def _csv_value(value):
    if isinstance(value, (list, tuple)):
        return json.dumps(value)
    return "" if value is None else value


def write_csv(path, cells):
    with path.open("w", newline="") as stream:
        writer = csv.writer(stream)
        writer.writerow(CSV_COLUMNS)
        for cell in cells:
            writer.writerow([_csv_value(cell.get(c)) for c in CSV_COLUMNS])


def format_time(seconds):
    if seconds is None:
        return "-"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds * 1e6:.1f} us"


def format_bytes(count):
    if count is None:
        return "-"
    return f"{count / 2**20:.1f} MiB" if count >= 2**20 else f"{count / 2**10:.0f} KiB"


def cell_text(cell, best):
    """One table entry: modeled (or measured) time, bound, roofline share,
    VMEM, and what failed."""
    if cell.get("compile") == "FAIL":
        return "compile FAIL"
    if is_baseline(cell):
        if cell.get("tpu_compile") != "pass":
            return f"{cell.get('tpu_compile')}: {cell.get('tpu_compile_detail', '')[:60]}"
        text = f"static {format_time(cell.get('static_s'))}, VMEM {format_bytes(cell.get('compiler_vmem_bytes'))}"
    else:
        time_s = cell.get("measured_s") or cell.get("modeled_s")
        roofline = cell.get("measured_roofline_fraction") or cell.get("roofline_fraction")
        text = (f"{format_time(time_s)} ({cell.get('bound', '?')}, "
                f"{100 * (roofline or 0):.0f}%), VMEM {format_bytes(cell.get('vmem_peak_bytes'))}")
        if cell.get("static_s"):
            text += f", static {format_time(cell['static_s'])}"
    if cell.get("tpu_compile") not in ("pass", None):
        text += f", **libtpu {cell['tpu_compile']}**"
    if cell.get("correct") not in ("pass", None, "n/a"):
        text += f", **interpret {cell['correct']}**"
    if cell.get("measured") not in ("ok", None, "no TPU", "n/a"):
        text += f", measured: {cell['measured']}"
    return f"**{text}** ★" if best else text


def write_markdown(path, cells, env, summary, gpu_lines=()):
    best = best_launchers(cells)
    lines = ["# Tessera benchmark matrix", "",
             f"git {env['git']['revision']}{' (dirty)' if env['git']['dirty'] else ''}, "
             f"{env['date']}, host {env['machine']['host']} "
             f"(TPU: {env['machine']['tpu'] or 'none, measured column says no TPU'}), "
             f"jax {env['versions']['jax']}, libtpu {env['versions']['libtpu']}.", "",
             "Each entry: modeled time (measured where this host has the TPU), the "
             "model's bound and share of roofline, VMEM peak; ★ marks the fastest launcher "
             "the real compiler accepts. Baseline rows (JAX's hand-written kernels) give "
             "the compiler's static schedule time and VMEM.", ""]
    kernels = sorted({c["kernel"] for c in cells})
    for kernel in kernels:
        mine = [c for c in cells if c["kernel"] == kernel]
        launchers = sorted({c["launcher"] for c in mine},
                           key=lambda l: (is_baseline({"launcher": l}), l))
        lines += [f"## {kernel}", "",
                  "| shape | dtype | blocks | tpu | " + " | ".join(launchers) + " |",
                  "|---|---|---|---|" + "---|" * len(launchers)]
        rows = {}
        for cell in mine:
            rows.setdefault((cell["shape"], cell["dtype"], cell["variant"], cell["tpu"]),
                            {})[cell["launcher"]] = cell
        for (shape, dtype, variant, tpu), entries in rows.items():
            any_cell = next(iter(entries.values()))
            shapes = " ".join("x".join(map(str, s)) for s in any_cell["shapes"])
            blocks = any_cell.get("block_sizes")
            block_text = f"{variant} {blocks}" if blocks else variant
            texts = [cell_text(entries[l], best.get((kernel, shape, dtype, variant, tpu)) == l)
                     if l in entries else "-" for l in launchers]
            lines.append(f"| {shape} [{shapes}] | {dtype} | {block_text} | {tpu} | "
                         + " | ".join(texts) + " |")
        lines.append("")
    if summary:
        lines += ["## Against the hand-written baselines", "",
                  "Static schedule time (bundles per grid step x grid steps / clock, from the "
                  "real compiler's dump) of our straight-line launcher (unroll) and of JAX's "
                  "kernel at the same blocks; ratio < 1: ours is shorter. VMEM: what the "
                  "compiler allocated.", "",
                  "| kernel | shape | dtype | blocks | tpu | launcher | ours | baseline | ratio | "
                  "VMEM ours / baseline | fastest launcher (model) |",
                  "|---|---|---|---|---|---|---|---|---|---|---|"]
        for row in summary:
            lines.append(
                f"| {row['kernel']} vs {row['baseline']} | {row['shape']} | {row['dtype']} | "
                f"{row['variant']} | {row['tpu']} | {row['best_launcher']} | {format_time(row['ours_static_s'])} | "
                f"{format_time(row['baseline_static_s'])} | {row['static_ratio']:.2f} | "
                f"{format_bytes(row['ours_vmem_bytes'])} / "
                f"{format_bytes(row['baseline_vmem_bytes'])} | {row['best_modeled_launcher']} |")
        lines.append("")
    lines += list(gpu_lines)
    path.write_text("\n".join(lines))
