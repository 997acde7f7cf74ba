"""The matrix's GPU column: bench/gpu/bench_gpu.py's JSON, summarized.

The TPU cells are modeled (or measured where the host has a TPU); the GPU
numbers come from a run of bench_gpu.py on an NVIDIA GPU (results kept in
bench/gpu/results/). Per kernel: each candidate's best variant (tessera's
launchers, Helion at tessera's best config, XLA, pallas.ops.gpu, the copy),
and whether issue 17's targets were met.
"""
import json
import pathlib

RESULTS_DIR = pathlib.Path(__file__).resolve().parents[1] / "gpu" / "results"
CANDIDATES = ("tessera", "tessera_mosaic", "helion", "xla", "pallas", "copy")


def default_results():
    """The newest committed bench_gpu.py JSON, or None."""
    found = sorted(RESULTS_DIR.glob("*.json"))
    return found[-1] if found else None


def load(path):
    path = pathlib.Path(path).resolve()
    document = json.loads(path.read_text())
    root = RESULTS_DIR.parents[2]
    document["source"] = str(path.relative_to(root) if path.is_relative_to(root) else path)
    return document


def _rate(result):
    return result.get("tflops") or result.get("gb_per_s") or 0.0


def best_results(entry):
    """candidate -> its fastest timed result (Helion: at tessera's best
    config, so that the two compilers are compared on one launch)."""
    timed = [r for r in entry["results"] if "median_us" in r]
    best = {}
    for label in CANDIDATES:
        mine = [r for r in timed if r["candidate"] == label]
        if mine:
            best[label] = min(mine, key=lambda r: r["median_us"])
    if "tessera" in best:
        same = [r for r in timed if r["candidate"] == "helion"
                and r["config"] == best["tessera"]["config"]]
        if same:
            best["helion"] = same[0]
    return best


def markdown_lines(document):
    """The matrix.md section of a bench_gpu.py report."""
    unit = {True: "TFLOP/s", False: "GB/s"}
    lines = ["## GPU (pallas-gpu, measured)", "",
             f"From `{document['source']}`: {document['device']}, jax {document['jax']}, "
             f"size {document['size']}"
             f"{', interpret mode (no timing meaning)' if document['interpret'] else ''}. "
             "Each entry: median time per call and rate at the candidate's fastest variant "
             "(`config`); Helion at tessera's best config.", "",
             "| kernel | " + " | ".join(CANDIDATES) + " |",
             "|---|" + "---|" * len(CANDIDATES)]
    for entry in document["entries"]:
        best = best_results(entry)
        cells = []
        for label in CANDIDATES:
            result = best.get(label)
            if result is None:
                cells.append("-")
                continue
            rate_unit = unit["tflops" in result]
            config = f" `{result['config']}`" if result.get("config") else ""
            cells.append(f"{result['median_us']:.1f} us, {_rate(result):.0f} {rate_unit}{config}")
        lines.append(f"| {entry['kernel']} | " + " | ".join(cells) + " |")
    targets = [(entry["kernel"], t) for entry in document["entries"]
               for t in entry.get("targets", [])]
    if targets and not document["interpret"]:
        lines += ["", "| kernel | target | met | best |", "|---|---|---|---|"]
        lines += [f"| {kernel} | {t['target']} | {'yes' if t['met'] else '**no**'} | "
                  f"{t['detail']} |" for kernel, t in targets]
    return lines + [""]
