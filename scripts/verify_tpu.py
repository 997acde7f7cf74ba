"""Compiles a Tessera-generated Pallas module with the real TPU compiler.

usage: verify_tpu.py MODULE.py [--arg NAME=TYPE ...] [--tpu GEN ...] [--kernel NAME]
       verify_tpu.py MODULE.py ... --results FILE [--measure RUNS]

PyPI's libtpu (the version jax[tpu]==0.10.2 pins) compiles Pallas kernels ahead
of time with no TPU attached: a deviceless topology of the generation stands in
for the chip. Mosaic then checks what interpret mode and `jax.export` cannot:
tiling and alignment of every vector load and store, layouts, and the VMEM the
kernel allocates. On success this prints one line per generation; on failure
it prints the compiler's error as `SOURCE:LINE: error: ...`, located at the
kernel line whose code the compiler rejected (the generated module's
`# src: line N` comments), and exits 1.

  --arg x=bf16[1024,512]   a tensor argument's type, as for `tessera compile`
                           (every tensor parameter needs one unless the module
                           was compiled for static shapes)
  --tpu v5e|v6e|v7x        generation(s) to compile for (repeatable); default:
                           the one the module was generated for

  --results FILE           several modules in one process (`tessera tune`
                           checks its best candidates so, a share of them
                           per process): one line per module and
                           generation in FILE, tab-separated: ok|rejected,
                           the module, the detail; each module's lines are
                           written once it is checked
  --measure N              with --results, on a host whose jax.devices()
                           has a TPU: also time the first N modules (a
                           warm-up call, then 20 timed calls, the median in
                           microseconds); elsewhere one `no-tpu` line says so

`tessera compile --verify-tpu` runs this on each module it writes. The
conformance tests import compile_tpu() and compiler_error() from here.
"""
import argparse
import contextlib
import importlib.util
import inspect
import os
import pathlib
import re
import shutil
import sys
import tempfile

GENERATIONS = ("v5e", "v6e", "v7x")
MEASURED_RUNS = 20  # timed calls per measured module (--measure)
# A deviceless topology per generation (jax.experimental.topologies names).
TOPOLOGIES = {"v5e": "v5e:2x2", "v6e": "v6e:2x2", "v7x": "tpu7x:2x2x1"}
DTYPES = {"f32": "float32", "bf16": "bfloat16", "f16": "float16", "i8": "int8",
          "i16": "int16", "i32": "int32", "i64": "int64", "bool": "bool"}


def prepare_environment(dump_dir=None):
    """Environment libtpu reads once, when it loads: no metadata server to ask
    for the host's TPU, several processes may load it at once (it otherwise
    holds /tmp/libtpu_lockfile), and optionally Mosaic's per-pass dumps with
    source locations (how an error is mapped back to a line). Set only what
    the caller has not set."""
    os.environ.setdefault("TPU_SKIP_MDS_QUERY", "1")
    os.environ.setdefault("ALLOW_MULTIPLE_LIBTPU_LOAD", "1")
    # Without them libtpu warns on stderr that it cannot find the host's TPU
    # (deviceless compiles name their topology explicitly).
    os.environ.setdefault("TPU_WORKER_HOSTNAMES", "localhost")
    os.environ.setdefault("TPU_ACCELERATOR_TYPE", "v6e-4")
    if dump_dir is not None:
        flags = (f"--xla_mosaic_dump_to={dump_dir} "
                 "--xla_mosaic_enable_dump_debug_info=true")
        os.environ["LIBTPU_INIT_ARGS"] = (
            os.environ.get("LIBTPU_INIT_ARGS", "") + " " + flags).strip()


_devices = {}


def tpu_device(generation):
    """The first device of a deviceless topology of `generation`."""
    if generation not in _devices:
        prepare_environment()
        from jax.experimental import topologies
        topology = topologies.get_topology_desc(TOPOLOGIES[generation], "tpu")
        _devices[generation] = topology.devices[0]
    return _devices[generation]


def compile_tpu(function, arg_specs, generation):
    """Compiles function(*args) for `generation`; returns jax's Compiled.

    arg_specs: arrays, ShapeDtypeStructs or (shape, dtype) pairs. The TPU is
    the default device while tracing, so everything that asks for the chip
    (emit_pipeline, tiling) sees it. Raises the compiler's error."""
    import jax
    import jax.numpy as jnp
    device = tpu_device(generation)
    sharding = jax.sharding.SingleDeviceSharding(device)
    structs = []
    for spec in arg_specs:
        if hasattr(spec, "shape") and hasattr(spec, "dtype"):
            shape, dtype = tuple(spec.shape), spec.dtype
        else:
            shape, dtype = tuple(spec[0]), jnp.dtype(spec[1])
        structs.append(jax.ShapeDtypeStruct(shape, dtype, sharding=sharding))
    with jax.default_device(device):
        return jax.jit(function).trace(*structs).lower().compile()


def compiler_error(error):
    """The compiler's verdict in one line: the first line naming an error code
    or a failure, else the exception's first line."""
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    for index, line in enumerate(lines):
        if re.search(r"\bE\d{4}\b|RESOURCE_EXHAUSTED|error:|Mosaic failed", line):
            # "E1001: CompileTimeScopedVmemOom:" says what, its next line how
            # much: without it the verdict does not say what to change.
            if line.endswith(":") and index + 1 < len(lines):
                line = f"{line} {lines[index + 1]}"
            return f"{type(error).__name__}: {line}"[:400]
    first = lines[0] if lines else ""
    return f"{type(error).__name__}: {first}"[:400]


def describe(compiled):
    """'code 45 KiB, temp 0 KiB' from the compiler's memory analysis."""
    stats = compiled.memory_analysis()
    if stats is None:
        return "compiled"
    return (f"code {stats.generated_code_size_in_bytes // 1024} KiB, "
            f"temp {stats.temp_size_in_bytes // 1024} KiB")


# --- Mapping an error back to the kernel source -----------------------------

def _loc_definitions(text):
    return dict(re.findall(r"^(#loc\d*) = (loc\(.*\))\s*$", text, re.M))


def _file_line(loc, definitions, module_path, depth=0):
    """The module line a Mosaic location (or #locN alias) points into."""
    if depth > 32:
        return None
    for path, line in re.findall(r'"([^"]+)":(\d+)', loc):
        if pathlib.Path(path).name == module_path.name:
            return int(line)
    for alias in re.findall(r"#loc\d*", loc):
        line = _file_line(definitions.get(alias, ""), definitions, module_path, depth + 1)
        if line is not None:
            return line
    return None


def failing_module_line(error, module_path, dump_dir):
    """The generated module's line of the op the compiler rejected, or None.

    Pallas lowering errors name it (`at FILE:LINE`); Mosaic's own errors print
    the op, which its `*-failed.txt` pass dump shows with its location."""
    message = str(error)
    match = re.search(re.escape(module_path.name) + r":(\d+)", message)
    if match:
        return int(match.group(1))
    if dump_dir is None:
        return None
    op = re.search(r'"([a-z_]+\.[a-z_]+)"\(', message)
    memref = re.search(r"memref<[^,>]*", message[op.end():]) if op else None
    failed = sorted(pathlib.Path(dump_dir).glob("*-failed.txt"),
                    key=lambda p: p.stat().st_mtime)
    if not op or not memref or not failed:
        return None
    op_name, memref = op.group(1), memref.group(0)
    text = failed[-1].read_text()
    definitions = _loc_definitions(text)
    for line in text.splitlines():
        if op_name in line and memref in line:
            loc = re.search(r"loc\((#loc\d*)\)\s*$", line)
            if loc:
                return _file_line(loc.group(1), definitions, module_path)
    return None


def source_line(module_path, generated_line):
    """The `# src: line N` that governs a generated line (the nearest above)."""
    lines = module_path.read_text().splitlines()
    for index in range(min(generated_line, len(lines)) - 1, -1, -1):
        match = re.match(r"\s*# src: line (\d+)", lines[index])
        if match:
            return int(match.group(1))
    return None


# --- Command line -----------------------------------------------------------

def module_header(module_path):
    """(source file, kernel name, generation) from the generated header."""
    head = "\n".join(module_path.read_text().splitlines()[:10])
    match = re.search(r"from (\S+): kernel (\w+), launcher \w+, tpu (\w+)", head)
    if not match:
        raise ValueError(f"{module_path}: not a module generated by tessera's "
                         "pallas-tpu backend (no header line)")
    return match.group(1), match.group(2), match.group(3)


def parse_type(text):
    match = re.fullmatch(r"\s*(\w+)\s*\[([^\]]*)\]\s*", text)
    if not match or match.group(1) not in DTYPES:
        raise ValueError(f"invalid type '{text}' (expected e.g. bf16[1024,512])")
    dims = [d.strip() for d in match.group(2).split(",") if d.strip()]
    if not all(d.isdigit() for d in dims):
        raise ValueError(f"invalid type '{text}': dims must be integers")
    return tuple(int(d) for d in dims), DTYPES[match.group(1)]


def argument_specs(function, given, module_path):
    """Shapes for every positional parameter without a default."""
    specs, missing = [], []
    for name, parameter in inspect.signature(function).parameters.items():
        if parameter.kind is not parameter.POSITIONAL_OR_KEYWORD:
            continue
        if name in given:
            specs.append(given[name])
        elif parameter.default is parameter.empty:
            missing.append(name)
    if missing:
        raise ValueError(f"{module_path}: give the shapes of {', '.join(missing)} "
                         "with --arg NAME=TYPE (e.g. --arg "
                         f"{missing[0]}=bf16[1024,512])")
    return specs


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("module", type=pathlib.Path, nargs="+")
    parser.add_argument("--arg", action="append", default=[], metavar="NAME=TYPE")
    parser.add_argument("--tpu", action="append", choices=GENERATIONS)
    parser.add_argument("--kernel", help="host function (default: the module's kernel)")
    parser.add_argument("--results", type=pathlib.Path)
    parser.add_argument("--measure", type=int, default=0, metavar="N")
    args = parser.parse_args(argv)
    if len(args.module) > 1 and args.results is None:
        parser.error("several modules need --results FILE")
    dump_dir = tempfile.mkdtemp(prefix="tessera-mosaic-")
    try:
        if args.results is None:
            return verify(args, args.module[0].resolve(), dump_dir)
        return verify_batch(args, dump_dir)
    finally:
        shutil.rmtree(dump_dir, ignore_errors=True)


def verify_batch(args, dump_dir):
    """Every module in this one process (libtpu loads once); a verdict line
    per module and generation in args.results."""
    # Each module's lines are written as soon as it is checked: `tessera
    # tune` reads the file while this runs to show its progress.
    results = args.results.open("w", encoding="utf-8")
    lines = []

    def flush():
        results.write("".join(line.replace("\n", " ") + "\n" for line in lines))
        results.flush()
        lines.clear()

    measure_on = None
    if args.measure:
        import jax
        tpus = [d for d in jax.devices() if d.platform == "tpu"]
        if tpus:
            measure_on = tpus[0]
        else:
            lines.append(f"no-tpu\t-\tjax.devices() has no TPU here "
                         f"({jax.devices()[0].platform}); nothing measured")
    prepare_environment(dump_dir)
    given = {}
    for item in args.arg:
        name, _, spelling = item.partition("=")
        given[name.strip()] = parse_type(spelling)
    for index, path in enumerate(args.module):
        module_path = path.resolve()
        try:
            _, kernel, generated_for = module_header(module_path)
            spec = importlib.util.spec_from_file_location("tessera_verified", module_path)
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            function = getattr(module, args.kernel or kernel)
            specs = argument_specs(function, given, module_path)
        except (ValueError, OSError, SyntaxError, AttributeError) as error:
            lines.append(f"rejected\t{path}\t{error}")
            flush()
            continue
        compiles = True
        for generation in args.tpu or [generated_for]:
            try:
                compiled = compile_tpu(function, specs, generation)
            except Exception as error:  # The compiler's verdict, reported.
                lines.append(f"rejected\t{path}\t{compiler_error(error)}")
                compiles = False
                continue
            lines.append(f"ok\t{path}\t{describe(compiled)}")
        if compiles and measure_on is not None and index < args.measure:
            micros = measure(function, specs, measure_on, MEASURED_RUNS)
            lines.append(f"measured\t{path}\t{micros:.2f}")
        flush()
    flush()
    results.close()
    return 0


def measure(function, specs, device, runs):
    """Median wall time in microseconds of `runs` calls on `device`, after a
    warm-up call (compilation excluded)."""
    import statistics
    import time
    import jax
    import numpy as np
    rng = np.random.default_rng(0)
    arrays = [jax.device_put(rng.standard_normal(shape).astype(dtype), device)
              for shape, dtype in specs]
    jitted = jax.jit(function)
    jax.block_until_ready(jitted(*arrays))
    times = []
    for _ in range(max(1, runs)):
        start = time.perf_counter()
        jax.block_until_ready(jitted(*arrays))
        times.append((time.perf_counter() - start) * 1e6)
    return statistics.median(times)


def verify(args, module_path, dump_dir):
    prepare_environment(dump_dir)
    try:
        source, kernel, generated_for = module_header(module_path)
        given = {}
        for item in args.arg:
            name, _, spelling = item.partition("=")
            given[name.strip()] = parse_type(spelling)
        spec = importlib.util.spec_from_file_location("tessera_verified", module_path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        function = getattr(module, args.kernel or kernel)
        specs = argument_specs(function, given, module_path)
    except (ValueError, OSError, SyntaxError, AttributeError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    failed = False
    for generation in args.tpu or [generated_for]:
        with contextlib.redirect_stderr(sys.stderr):
            try:
                compiled = compile_tpu(function, specs, generation)
            except Exception as error:  # The compiler's verdict, reported.
                failed = True
                line = failing_module_line(error, module_path, dump_dir)
                src = source_line(module_path, line) if line else None
                where = f"{source}:{src}:1" if src else f"{module_path}"
                generated = f" (generated {module_path.name}:{line})" if line else ""
                print(f"{where}: error: the real TPU compiler rejects kernel "
                      f"'{kernel}' for {generation}{generated}: {compiler_error(error)}")
                continue
        print(f"{module_path.name}: compiles for TPU {generation} ({describe(compiled)})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
