"""`tessera bench --compare OLD/results.json`: the change per cell between
two runs (matched by kernel, shape, dtype, launcher, block variant and
generation), printed, written as compare.md and plotted as compare.png."""
import json
import math

import report

# Numeric fields compared as new / old.
RATIO_FIELDS = ("modeled_s", "measured_s", "static_s", "compile_time_s", "vmem_peak_bytes",
                "code_bytes")
# Verdicts whose change is reported whatever the numbers do.
VERDICT_FIELDS = ("compile", "tpu_compile", "correct", "bound")


def load(path):
    with open(path) as stream:
        return json.load(stream)


def label(key):
    kernel, shape, dtype, launcher, variant, tpu = key
    return f"{kernel} {shape} {dtype} {launcher} {variant} {tpu}"


def changes(old_cells, new_cells, threshold=0.02):
    """Rows (key, {field: (old, new)}, modeled ratio) for every cell whose
    verdicts changed or whose numbers moved by more than `threshold`,
    plus cells only in one run."""
    old = {report.cell_key(c): c for c in old_cells}
    new = {report.cell_key(c): c for c in new_cells}
    rows = []
    for key in sorted(set(old) | set(new), key=lambda k: tuple(str(p) for p in k)):
        if key not in old or key not in new:
            rows.append((key, {"cell": ("-" if key not in old else "present",
                                        "-" if key not in new else "present")}, None))
            continue
        before, after, moved = old[key], new[key], {}
        for field in VERDICT_FIELDS:
            if before.get(field) != after.get(field):
                moved[field] = (before.get(field), after.get(field))
        for field in RATIO_FIELDS:
            a, b = before.get(field), after.get(field)
            if isinstance(a, (int, float)) and isinstance(b, (int, float)) and a > 0:
                if abs(b / a - 1) > threshold:
                    moved[field] = (a, b)
        ratio = None
        if before.get("modeled_s") and after.get("modeled_s"):
            ratio = after["modeled_s"] / before["modeled_s"]
        if moved:
            rows.append((key, moved, ratio))
    return rows


def _format(field, value):
    if isinstance(value, float) and field.endswith("_s"):
        return report.format_time(value)
    if isinstance(value, int) and field.endswith("bytes"):
        return report.format_bytes(value)
    return str(value)


def render(rows, old_doc, new_doc):
    lines = ["# Benchmark comparison", "",
             f"old: git {old_doc['git']['revision']} ({old_doc['date']}); "
             f"new: git {new_doc['git']['revision']} ({new_doc['date']})", ""]
    if not rows:
        return "\n".join(lines + ["No cell changed.", ""])
    lines += ["| cell | change |", "|---|---|"]
    for key, moved, _ in rows:
        parts = []
        for field, (a, b) in moved.items():
            text = f"{field}: {_format(field, a)} -> {_format(field, b)}"
            if field in RATIO_FIELDS:
                text += f" (x{b / a:.2f})"
            parts.append(text)
        lines.append(f"| {label(key)} | {'; '.join(parts)} |")
    return "\n".join(lines + [""])


def plot(rows, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    ratios = [(label(key), ratio) for key, _, ratio in rows if ratio]
    ratios.sort(key=lambda item: item[1])
    figure, axes = plt.subplots(figsize=(8, 1 + 0.22 * max(1, len(ratios))))
    if ratios:
        values = [math.log2(r) for _, r in ratios]
        axes.barh(range(len(ratios)), values,
                  color=["tab:green" if v < 0 else "tab:red" for v in values])
        axes.set_yticks(range(len(ratios)), [name for name, _ in ratios], fontsize=6)
    else:
        axes.text(0.5, 0.5, "no modeled time changed", ha="center", va="center")
    axes.axvline(0, color="black", linewidth=0.8)
    axes.set_xlabel("log2(new / old modeled time): left is faster")
    axes.set_title("Change per cell", fontsize=9)
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)


def compare(old_path, new_doc, out_dir, quiet=False):
    """Compares and writes compare.md / compare.png into out_dir; returns
    the markdown."""
    old_doc = load(old_path)
    rows = changes(old_doc["cells"], new_doc["cells"])
    text = render(rows, old_doc, new_doc)
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "compare.md").write_text(text)
    plot(rows, out_dir / "compare.png")
    if not quiet:
        print(text)
    return text
