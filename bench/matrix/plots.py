"""The matrix as PNG pictures (matplotlib, no display needed):
  heatmap_<tpu>.png  kernel x launcher, time relative to the kernel's best
                     launcher, the time itself written in each square;
  roofline.png       every cell at its arithmetic intensity and achieved
                     flop rate, under each generation's roofline;
  launchers.png      per kernel, a bar per launcher and generation.
Times are measured where a cell has a measurement, else modeled. Each
kernel is shown at its headline cell: the realistic shape (else the
first one), bf16 (else f32), its own block sizes."""
import math
import re

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import report  # noqa: E402
import spec  # noqa: E402

MARKERS = {"v5e": "o", "v6e": "s", "v7x": "^"}


def cell_time(cell):
    return cell.get("measured_s") or cell.get("modeled_s")


def hardware_peaks(source_dir):
    """{tpu: (bf16 flop/s, HBM bytes/s)} from the cost model's table."""
    text = (source_dir / "backends/pallas_tpu/cost_model/tpu_hardware.def").read_text()
    code = "\n".join(line.split("//")[0] for line in text.splitlines())
    peaks = {}
    for row in re.findall(r"TPU_GENERATION\((.*?)\)", code, re.S):
        fields = [f.strip() for f in row.split(",")]
        peaks[fields[0].strip('"')] = (float(fields[2]), float(fields[5]))
    return peaks


def headline(cells):
    """{kernel: (shape, dtype, variant)} of the cells the pictures show."""
    choice = {}
    for kernel in sorted({c["kernel"] for c in cells}):
        mine = [c for c in cells if c["kernel"] == kernel and cell_time(c)]
        if not mine:
            continue
        shapes = sorted({c["shape"] for c in mine}, key=spec.SHAPE_LABELS.index)
        shape = "realistic" if "realistic" in shapes else shapes[0]
        dtypes = {c["dtype"] for c in mine if c["shape"] == shape}
        choice[kernel] = (shape, "bf16" if "bf16" in dtypes else sorted(dtypes)[0], "own")
    return choice


def _ours(cells):
    return [c for c in cells if not report.is_baseline(c)]


def heatmap(cells, tpu, path):
    picks = headline(_ours(cells))
    kernels = list(picks)
    launchers = sorted({c["launcher"] for c in _ours(cells)})
    times = [[None] * len(launchers) for _ in kernels]
    for cell in _ours(cells):
        if cell["tpu"] != tpu or cell["kernel"] not in picks:
            continue
        if (cell["shape"], cell["dtype"], cell["variant"]) != picks[cell["kernel"]]:
            continue
        if cell.get("tpu_compile") == "pass":
            times[kernels.index(cell["kernel"])][launchers.index(cell["launcher"])] = cell_time(cell)
    ratios = []
    for row in times:
        best = min((t for t in row if t), default=None)
        ratios.append([t / best if t and best else math.nan for t in row])
    figure, axes = plt.subplots(figsize=(2.2 + 1.6 * len(launchers), 0.9 + 0.38 * len(kernels)))
    image = axes.imshow(ratios, cmap="RdYlGn_r", vmin=1.0, vmax=3.0, aspect="auto")
    for i, row in enumerate(times):
        for j, value in enumerate(row):
            axes.text(j, i, report.format_time(value) if value else "rejected",
                      ha="center", va="center", fontsize=7)
    axes.set_xticks(range(len(launchers)), launchers)
    axes.set_yticks(range(len(kernels)), [f"{k} ({picks[k][0]}, {picks[k][1]})" for k in kernels],
                    fontsize=7)
    axes.set_title(f"{tpu}: kernel time by launcher (colour: x slowest vs best)", fontsize=9)
    figure.colorbar(image, ax=axes, label="time / best launcher")
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)


def roofline(cells, peaks, path):
    figure, axes = plt.subplots(figsize=(7.5, 5))
    colors = {}
    for cell in cells:
        time_s, flops = cell_time(cell), cell.get("flops")
        if not time_s or not flops or not cell.get("arithmetic_intensity"):
            continue
        color = colors.setdefault(cell["launcher"], f"C{len(colors)}")
        axes.scatter(cell["arithmetic_intensity"], flops / time_s, s=12, alpha=0.6,
                     color=color, marker=MARKERS.get(cell["tpu"], "o"))
    intensities = [2.0 ** e for e in range(-4, 13)]
    for tpu, (peak, bandwidth) in sorted(peaks.items()):
        axes.plot(intensities, [min(peak, i * bandwidth) for i in intensities], "--",
                  linewidth=1, color="gray")
        axes.text(intensities[-1], peak, tpu, fontsize=7, va="bottom", ha="right")
    for launcher, color in colors.items():
        axes.scatter([], [], color=color, label=launcher)
    for tpu, marker in MARKERS.items():
        axes.scatter([], [], color="black", marker=marker, label=tpu)
    axes.set_xscale("log", base=2)
    axes.set_yscale("log")
    axes.set_xlabel("arithmetic intensity (flop / HBM byte)")
    axes.set_ylabel("achieved flop/s (modeled or measured)")
    axes.set_title("Every cell against the roofline (bf16 peak, HBM bandwidth)", fontsize=9)
    axes.legend(fontsize=7, loc="lower right")
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)


def launcher_bars(cells, path):
    picks = headline(_ours(cells))
    kernels = list(picks)
    columns = min(4, max(1, len(kernels)))
    rows = math.ceil(len(kernels) / columns)
    figure, grid = plt.subplots(rows, columns, figsize=(3.3 * columns, 2.4 * rows), squeeze=False)
    launchers = sorted({c["launcher"] for c in cells})
    tpus = sorted({c["tpu"] for c in cells})
    width = 0.8 / max(1, len(launchers))
    for index, kernel in enumerate(kernels):
        axes = grid[index // columns][index % columns]
        for j, launcher in enumerate(launchers):
            heights = []
            for tpu in tpus:
                match = [c for c in cells if c["kernel"] == kernel and c["launcher"] == launcher
                         and c["tpu"] == tpu
                         and (c["shape"], c["dtype"], c["variant"]) == picks[kernel]]
                value = None
                if match and match[0].get("tpu_compile") == "pass":
                    value = cell_time(match[0]) or match[0].get("static_s")
                heights.append(value * 1e6 if value else 0)
            axes.bar([t + j * width for t in range(len(tpus))], heights, width,
                     label=launcher, color=f"C{j}")
        axes.set_xticks([t + width * (len(launchers) - 1) / 2 for t in range(len(tpus))], tpus,
                        fontsize=7)
        axes.set_title(f"{kernel} ({picks[kernel][0]}, {picks[kernel][1]})", fontsize=8)
        axes.set_ylabel("us", fontsize=7)
        axes.tick_params(labelsize=7)
    for index in range(len(kernels), rows * columns):
        grid[index // columns][index % columns].axis("off")
    handles, labels = grid[0][0].get_legend_handles_labels()
    figure.legend(handles, labels, loc="lower center", ncol=len(launchers), fontsize=8)
    figure.tight_layout(rect=(0, 0.05, 1, 1))
    figure.savefig(path, dpi=100)
    plt.close(figure)


def write_all(cells, out_dir, source_dir):
    """Writes every picture; returns their paths."""
    paths = []
    for tpu in sorted({c["tpu"] for c in cells}):
        paths.append(out_dir / f"heatmap_{tpu}.png")
        heatmap(cells, tpu, paths[-1])
    paths.append(out_dir / "roofline.png")
    roofline(cells, hardware_peaks(source_dir), paths[-1])
    paths.append(out_dir / "launchers.png")
    launcher_bars(cells, paths[-1])
    return paths
