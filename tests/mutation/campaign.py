"""CLI-level mutation campaign (issue 33): mutated kernel files through
`tessera compile` under every pipeline config, each run classified.

Kernel files (examples/*.py and the kernels of tests/) are mutated from a
seed: token deletion, duplication and swap, indentation changes, operator
and keyword swaps, number changes, identifier typos, line deletion,
duplication and swap, truncation, splices of another kernel's lines and
unicode / byte injections (NBSP, U+202E, BOM, NUL, invalid UTF-8, ...),
one to five of them per file. Each mutated file is compiled with
`tessera compile FILE --config configs/<config>.toml -o DIR/` under each
config, with a timeout, and classified:

  crash        killed by a signal (SIGSEGV, SIGABRT, ...)
  exit2        exit 2: an internal error
  other_exit   any exit status but 0, 1 and 2
  hang         still running after --timeout seconds (10)
  unparseable  exit 0, but a written .py module fails ast.parse
  unlocated    exit 1, and the first error line has no FILE:LINE:COL
               naming the input (or its line is past the end of the file)
  ok           exit 0, every module parses
  located      exit 1 with a located first error

The first six are bad: the run exits 1 when any of them occurs. A run is one
mutated file under one config; `--count N` mutated files give N x configs
runs (`--configs rotate`: one config per file, rotating, N runs). Bad
inputs are kept under WORK/bad/<class>/ with the command that reproduces
each; `--minimize` first reduces each to fewer lines and tokens that still
give the same class under the same config.

usage: campaign.py --tessera BIN [--source-dir DIR] [--seed S] [--count N]
                   [--jobs J] [--configs all|rotate|NAME,...] [--timeout S]
                   [--work-dir DIR] [--minimize] [--plain]
       campaign.py --tessera BIN --replay FILE ...   (no mutation; files may
                   say `# expect-error: TEXT` or `# expect-ok`)
Deterministic given --seed and the kernel files (the mutated files, their
order and the configs).
"""
import argparse
import ast
import collections
import concurrent.futures
import math
import os
import pathlib
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time

CONFIGS = ("pallas_emit_pipeline", "pallas_unroll", "pallas_fori_loop",
           "pallas_gpu_triton", "pallas_gpu_mosaic")
BAD = ("crash", "exit2", "other_exit", "hang", "unparseable", "unlocated")
CLASSES = BAD + ("ok", "located")
# Kernel files the mutations start from, relative to the source dir. The
# rejection corpora (tests/driver/inputs/python_rejects, the fuzzers'
# regressions) are left out: they are broken on purpose already.
KERNEL_GLOBS = ("examples/*.py", "tests/frontend/ir/*.py", "tests/driver/inputs/*.py",
                "tests/random_kernels/regressions/*.py",
                "tests/conformance/*/kernels/*.py")

# Tokens found by a lexer that never fails (mutated text is not Python).
TOKEN = re.compile(r"""[^\W\d]\w*|\d[\w.]*(?:[eE][-+]?\d+)?|\.\d+\w*|"(?:[^"\\\n]|\\.)*"
                   |'(?:[^'\\\n]|\\.)*'|\*\*=?|//=?|->|<<=?|>>=?|[-+*/%@<>=!&|^]=
                   |[-+*/%@<>=&|^~()\[\]{}:.,;]""", re.X)
# Triple-quoted strings and comments: mutations inside them say little.
INERT = re.compile(r'"""[\s\S]*?"""|\'\'\'[\s\S]*?\'\'\'|#[^\n]*')
OPERATORS = ("+", "-", "*", "/", "//", "%", "**", "@", "<", ">", "<=", ">=", "==", "!=",
             "+=", "-=", "*=", "/=", "=", "and", "or", "not", "in", "is", "&", "|", "^")
KEYWORDS = ("for", "while", "if", "elif", "else", "return", "def", "in", "not", "pass",
            "break", "continue", "with", "lambda", "None", "True", "False", "yield",
            "global", "del", "assert", "async", "await", "import", "from", "class")
NUMBERS = ("0", "1", "-1", "2", "3", "7", "8", "16", "127", "128", "129", "256", "1024",
           "65536", "2147483647", "2147483648", "9223372036854775808",
           "99999999999999999999999999", "0.0", "-0.0", "1e30", "1e308", "1e309",
           "1e-45", "0.5", "1_000", "0x80", "0o17", "0b101", "1j", "-128", "4000000")
NAMES = ("None", "print", "hl", "torch", "tile", "x", "out", "self", "__name__", "math",
         "helion", "range", "len", "float", "int", "lambda", "_", "tile_m", "acc")
# Text injected at a random place: whitespace and controls Python treats
# specially, characters it rejects outside strings, and (as surrogate
# escapes, written back as raw bytes) invalid UTF-8.
INJECTIONS = ("\u00a0", "\u202e", "\u2066", "\ufeff", "\u200b", "\u2028", "\u00e9", "\u00df",
              "\U0001f525", "\u0301", "\uff08", "\u0430", "\x00", "\r", "\x0c", "\x0b",
              "\x1a", "\t", "\\\n", "\\", "\udcff", "\udcc3", "\udced\udca0\udc80", "\udc80",
              "'", '"', '"""', "f\"{", "#", ";", "(", ")", "[", "]", ":", "\n", "\n    ",
              "\n\t", " " * 3)
MUTATIONS = ("token_delete", "token_duplicate", "token_swap", "indent", "operator",
             "keyword", "number", "identifier", "line_delete", "line_duplicate",
             "line_swap", "truncate", "splice", "inject")
# Mutations that often leave a kernel valid (a number, an operator, a line
# repeated) are drawn more, so that more mutated kernels reach the passes
# and backends instead of stopping at the parser.
WEIGHTS = {"number": 3, "operator": 3, "line_duplicate": 2, "identifier": 2}


def decode(data):
    return data.decode("utf-8", "surrogateescape")


def encode(text):
    return text.encode("utf-8", "surrogateescape")


def code_tokens(text):
    """(start, end) of the tokens outside comments and triple-quoted
    strings, those after the first `@helion.kernel` first (the kernels)."""
    inert = [m.span() for m in INERT.finditer(text)]
    spans, at = [], 0
    for m in TOKEN.finditer(text):
        while at < len(inert) and inert[at][1] <= m.start():
            at += 1
        if at < len(inert) and inert[at][0] <= m.start() < inert[at][1]:
            continue
        spans.append(m.span())
    kernel = text.find("@helion.kernel")
    inside = [s for s in spans if kernel >= 0 and s[0] > kernel]
    return spans, inside


def pick_token(rng, text, test=None):
    spans, inside = code_tokens(text)
    pool = inside if inside and rng.random() < 0.85 else spans
    if test:
        pool = [s for s in pool if test(text[s[0]:s[1]])] or [s for s in spans if test(text[s[0]:s[1]])]
    return rng.choice(pool) if pool else None


def replace(text, span, new):
    return text[:span[0]] + new + text[span[1]:]


def typo(rng, word, names):
    if rng.random() < 0.2:
        return rng.choice(names)
    i = rng.randrange(len(word))
    kind = rng.randrange(6)
    if kind == 0 and len(word) > 1:
        return word[:i] + word[i + 1:]
    if kind == 1:
        return word[:i] + word[i] + word[i:]
    if kind == 2 and len(word) > 1:
        i = min(i, len(word) - 2)
        return word[:i] + word[i + 1] + word[i] + word[i + 2:]
    if kind == 3:
        return word[:i] + rng.choice("abcdefghijklmnopqrstuvwxyz_0") + word[i + 1:]
    if kind == 4:
        return word.swapcase()
    return word + str(rng.randrange(10))


def change_number(rng, token):
    if rng.random() < 0.6:
        return rng.choice(NUMBERS)
    try:
        value = float(token.replace("_", ""))
    except ValueError:
        return rng.choice(NUMBERS)
    value = rng.choice((value + 1, value - 1, value * 2, value / 2, -value, value * 1000))
    if math.isfinite(value) and value == int(value) and "." not in token:
        return str(int(value))
    return repr(value)


def mutate_once(text, kind, rng, corpus):
    """One mutation of `kind`; may return the text unchanged."""
    lines = text.split("\n")
    if kind in ("token_delete", "token_duplicate", "token_swap"):
        span = pick_token(rng, text)
        if span is None:
            return text
        if kind == "token_delete":
            return replace(text, span, "")
        if kind == "token_duplicate":
            token = text[span[0]:span[1]]
            return replace(text, span, token + rng.choice((" ", "")) + token)
        spans, _ = code_tokens(text)
        i = spans.index(span)
        if i + 1 >= len(spans):
            return text
        a, b = spans[i], spans[i + 1]
        return text[:a[0]] + text[b[0]:b[1]] + text[a[1]:b[0]] + text[a[0]:a[1]] + text[b[1]:]
    if kind in ("operator", "keyword", "number", "identifier"):
        if kind == "operator":
            span = pick_token(rng, text, lambda t: t in OPERATORS)
            return replace(text, span, rng.choice(OPERATORS)) if span else text
        if kind == "keyword":
            span = pick_token(rng, text, lambda t: t in KEYWORDS)
            return replace(text, span, rng.choice(KEYWORDS)) if span else text
        if kind == "number":
            span = pick_token(rng, text, lambda t: t[:1].isdigit())
            return replace(text, span, change_number(rng, text[span[0]:span[1]])) if span else text
        span = pick_token(rng, text, lambda t: t[:1].isalpha() or t[:1] == "_")
        if span is None:
            return text
        words = sorted({text[s:e] for s, e in code_tokens(text)[0] if text[s:s + 1].isalpha()})
        return replace(text, span, typo(rng, text[span[0]:span[1]], words + list(NAMES)))
    body = [i for i, line in enumerate(lines) if line.strip()]
    kernel = next((i for i, line in enumerate(lines) if "@helion.kernel" in line), 0)
    inside = [i for i in body if i > kernel] or body
    if not body:
        return text
    i = rng.choice(inside if rng.random() < 0.85 else body)
    if kind == "indent":
        line = lines[i]
        stripped = line.lstrip(" \t")
        indent = line[:len(line) - len(stripped)]
        how = rng.randrange(8)
        new = [indent + " ", indent[:-1], indent + "    ", indent[:-4], "", "\t" + indent,
               indent.replace("    ", "\t", 1), "\x0c" + indent][how]
        count = 1 if rng.random() < 0.7 else rng.randrange(2, 6)
        for j in range(i, min(i + count, len(lines))):
            if lines[j].startswith(indent):
                lines[j] = new + lines[j][len(indent):]
        return "\n".join(lines)
    if kind == "line_delete":
        del lines[i:i + (1 if rng.random() < 0.8 else rng.randrange(2, 5))]
    elif kind == "line_duplicate":
        lines.insert(i, lines[i])
    elif kind == "line_swap":
        j = rng.choice(inside)
        lines[i], lines[j] = lines[j], lines[i]
    elif kind == "truncate":
        at = rng.randrange(len(text) + 1) if rng.random() < 0.5 else \
            len("\n".join(lines[:i])) + rng.randrange(len(lines[i]) + 1)
        return text[:at]
    elif kind == "splice":
        other = decode(rng.choice(corpus)).split("\n")
        start = rng.randrange(len(other))
        lines[i:i] = other[start:start + rng.randrange(1, 8)]
    else:  # inject
        spans, inside_tokens = code_tokens(text)
        if inside_tokens and rng.random() < 0.7:
            span = rng.choice(inside_tokens)
            at = rng.choice(span)
        else:
            at = rng.randrange(len(text) + 1)
        return text[:at] + rng.choice(INJECTIONS) + text[at:]
    return "\n".join(lines)


def mutate(data, rng, corpus):
    """1 to 5 mutations of data (bytes); returns (bytes, [kinds])."""
    text = decode(data)
    count = 1 if rng.random() < 0.6 else 2 if rng.random() < 0.6 else rng.randrange(3, 6)
    kinds = []
    for _ in range(count):
        kind = rng.choices(MUTATIONS, [WEIGHTS.get(k, 1) for k in MUTATIONS])[0]
        text = mutate_once(text, kind, rng, corpus)
        kinds.append(kind)
    return encode(text), kinds


def kernel_files(source_dir):
    files = []
    for pattern in KERNEL_GLOBS:
        for path in sorted(source_dir.glob(pattern)):
            if b"@helion.kernel" in path.read_bytes():
                files.append(path)
    return files


def plan(args, sources):
    """[(index, base file, kinds, bytes, [configs])], deterministic."""
    corpus = [p.read_bytes() for p in sources]
    configs = args.config_names
    jobs = []
    for n in range(args.count):
        rng = random.Random(f"{args.seed}:{n}")
        base = rng.randrange(len(sources))
        for _ in range(5):   # a mutation can leave a file as it was
            mutated, kinds = mutate(corpus[base], rng, corpus)
            if mutated != corpus[base]:
                break
        chosen = [configs[n % len(configs)]] if args.rotate else list(configs)
        jobs.append((n, sources[base], kinds, mutated, chosen))
    return jobs


def first_error_line(stderr):
    for line in stderr.splitlines():
        if "error" in line:
            return line
    return ""


LOCATION = r"(?:^|/){name}:(\d+):(\d+): (?:fatal )?error"


def compile_command(tessera, path, config_path, out_dir):
    return [str(tessera), "compile", str(path), f"--config={config_path}", "--emit=code",
            f"--output={out_dir}/"]


def classify(tessera, path, config_path, out_dir, timeout):
    """(class, detail) of one `tessera compile` run."""
    shutil.rmtree(out_dir, ignore_errors=True)
    out_dir.mkdir(parents=True)
    command = compile_command(tessera, path, config_path, out_dir)
    start = time.perf_counter()
    try:
        proc = subprocess.run(command, capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "hang", f"over {timeout} s", timeout
    seconds = time.perf_counter() - start
    stderr = proc.stderr.decode("utf-8", "replace")
    code = proc.returncode
    if code < 0:
        return "crash", f"signal {-code}: {stderr[-300:]}", seconds
    if code == 2:
        return "exit2", first_error_line(stderr)[:300] or stderr[:300], seconds
    if code not in (0, 1):
        return "other_exit", f"exit {code}: {stderr[-300:]}", seconds
    if code == 0:
        for module in sorted(out_dir.rglob("*.py")):
            try:
                ast.parse(module.read_bytes(), str(module))
            except (SyntaxError, ValueError) as error:
                return "unparseable", f"{module.name}: {error}", seconds
        return "ok", "", seconds
    line = first_error_line(stderr)
    found = re.search(LOCATION.format(name=re.escape(path.name)), line)
    if not found:
        return "unlocated", line[:300] or stderr[:300], seconds
    lines = path.read_bytes().count(b"\n") + 1
    if not 1 <= int(found.group(1)) <= lines + 1:
        return "unlocated", f"line {found.group(1)} of a {lines}-line file: {line[:300]}", seconds
    return "located", line[:300], seconds


def run_job(job):
    """Worker: one mutated file under its configs."""
    tessera, source_dir, work, path, configs, timeout = job
    results = []
    for config in configs:
        out_dir = work / "out" / f"{path.stem}.{config}"
        klass, detail, seconds = classify(tessera, path, source_dir / "configs" / f"{config}.toml",
                                          out_dir, timeout)
        shutil.rmtree(out_dir, ignore_errors=True)
        results.append((config, klass, detail, seconds))
    return results


def minimize(args, path, config, klass):
    """Greedy line then token removal that keeps (config, class); returns
    the smaller bytes (at most --minimize-tries compiles)."""
    data = path.read_bytes()
    config_path = args.source_dir / "configs" / f"{config}.toml"
    probe = path.with_name(path.stem + "_min.py")
    tries = 0

    def same(candidate):
        nonlocal tries
        tries += 1
        probe.write_bytes(candidate)
        got, _, _ = classify(args.tessera, probe, config_path, args.work_dir / "out" / "min",
                             args.timeout)
        return got == klass

    for unit in ("lines", "tokens"):
        chunk = None
        while tries < args.minimize_tries:
            text = decode(data)
            if unit == "lines":
                pieces = text.split("\n")
                joiner = "\n"
            else:
                spans, _ = code_tokens(text)
                bounds = [0] + [e for _, e in spans] + [len(text)]
                pieces = [text[a:b] for a, b in zip(bounds, bounds[1:])]
                joiner = ""
            chunk = chunk or max(1, len(pieces) // 2)
            removed = False
            for start in range(0, len(pieces), chunk):
                if tries >= args.minimize_tries:
                    break
                candidate = encode(joiner.join(pieces[:start] + pieces[start + chunk:]))
                if candidate != data and same(candidate):
                    data, removed = candidate, True
                    break
            if not removed:
                if chunk == 1:
                    break
                chunk = max(1, chunk // 2)
    probe.unlink(missing_ok=True)
    return data


def keep_bad(args, job, config, klass, detail):
    n, base, kinds, _, _ = job
    folder = args.work_dir / "bad" / klass
    folder.mkdir(parents=True, exist_ok=True)
    path = args.work_dir / "kernels" / f"m{n:06d}_{base.stem}.py"
    target = folder / f"{path.stem}.{config}.py"
    shutil.copyfile(path, target)
    if args.minimize:
        small = minimize(args, target, config, klass)
        target = folder / f"{path.stem}.{config}.min.py"
        target.write_bytes(small)
    command = compile_command(args.tessera, target, args.source_dir / "configs" / f"{config}.toml",
                              "/tmp/mutation-out")
    (folder / f"{target.stem}.txt").write_text(
        f"base: {base}\nmutations: {', '.join(kinds)}\nconfig: {config}\n"
        f"class: {klass}\ndetail: {detail}\nreproduce: {' '.join(command)}\n")
    return target


def summary(args, counts, per_kind, seconds, kernels, runs, bad_lines):
    configs = args.config_names
    if args.plain:
        width = max(len(c) for c in configs) + 2
        print("class".ljust(14) + "".join(c.ljust(width) for c in configs) + "total")
        for klass in CLASSES:
            row = [counts[(c, klass)] for c in configs]
            print(klass.ljust(14) + "".join(str(v).ljust(width) for v in row) + str(sum(row)))
    else:
        from rich.console import Console
        from rich.table import Table
        table = Table(title=f"seed {args.seed}: {kernels} kernels, {runs} runs, {seconds:.0f} s")
        table.add_column("class")
        for config in configs:
            table.add_column(config.removeprefix("pallas_"), justify="right")
        table.add_column("total", justify="right")
        for klass in CLASSES:
            row = [counts[(c, klass)] for c in configs]
            style = "bold red" if klass in BAD and sum(row) else None
            table.add_row(klass, *map(str, row), str(sum(row)), style=style)
        Console(width=140).print(table)
    print("mutations (kernels with each kind -> bad runs): " + ", ".join(
        f"{kind} {per_kind[kind][0]}->{per_kind[kind][1]}" for kind in sorted(per_kind)))
    bad = sum(counts[(c, k)] for c in configs for k in BAD)
    print(f"mutation campaign: {kernels} mutated kernels, {runs} runs, "
          + ", ".join(f"{k} {sum(counts[(c, k)] for c in configs)}" for k in CLASSES)
          + f"; {seconds:.1f} s")
    for line in bad_lines:
        print("BAD", line)
    return bad


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    here = pathlib.Path(__file__).resolve().parents[2]
    parser.add_argument("--tessera", required=True, type=pathlib.Path)
    parser.add_argument("--source-dir", type=pathlib.Path, default=here)
    parser.add_argument("--seed", type=int, default=33)
    parser.add_argument("--count", type=int, default=150, help="mutated kernel files")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--configs", default="all",
                        help="all (each file under each config), rotate (one config per "
                             "file, rotating) or a comma-separated list of config names")
    parser.add_argument("--timeout", type=float, default=10.0, help="seconds before a hang")
    parser.add_argument("--work-dir", type=pathlib.Path)
    parser.add_argument("--minimize", action="store_true",
                        help="reduce each bad input before keeping it")
    parser.add_argument("--minimize-tries", type=int, default=150)
    parser.add_argument("--plain", action="store_true", help="a plain-text table, no rich")
    parser.add_argument("--replay", type=pathlib.Path, nargs="+",
                        help="compile these files as they are (no mutation) under the configs; "
                             "a line `# expect-error: TEXT` in one asks its first error to hold "
                             "TEXT, a line `# expect-ok` for exit 0")
    args = parser.parse_args(argv)
    args.tessera = args.tessera.resolve()
    args.source_dir = args.source_dir.resolve()
    args.rotate = args.configs == "rotate"
    args.config_names = list(CONFIGS) if args.configs in ("all", "rotate") else \
        args.configs.split(",")
    for name in args.config_names:
        if not (args.source_dir / "configs" / f"{name}.toml").is_file():
            parser.error(f"no config configs/{name}.toml")
    if args.work_dir is None:
        args.work_dir = pathlib.Path(tempfile.mkdtemp(prefix="tessera-mutation-"))
    args.work_dir = args.work_dir.resolve()
    return args


def main(argv):
    args = parse_args(argv)
    sources = kernel_files(args.source_dir)
    if not sources:
        print(f"no kernel files under {args.source_dir}", file=sys.stderr)
        return 1
    shutil.rmtree(args.work_dir / "bad", ignore_errors=True)
    (args.work_dir / "kernels").mkdir(parents=True, exist_ok=True)
    work = []
    if args.replay:
        jobs = [(n, path.resolve(), ["replay"], path.read_bytes(), list(args.config_names))
                for n, path in enumerate(args.replay)]
        for _, path, _, _, configs in jobs:
            work.append((args.tessera, args.source_dir, args.work_dir, path, configs, args.timeout))
    else:
        jobs = plan(args, sources)
        for n, base, _, data, configs in jobs:
            path = args.work_dir / "kernels" / f"m{n:06d}_{base.stem}.py"
            path.write_bytes(data)
            work.append((args.tessera, args.source_dir, args.work_dir, path, configs,
                         args.timeout))
    print(f"{len(jobs)} mutated kernels from {len(sources)} kernel files, "
          f"{sum(len(j[4]) for j in jobs)} runs, {args.jobs} jobs, work dir {args.work_dir}",
          flush=True)
    counts = collections.Counter()
    per_kind = {} if args.replay else {kind: [0, 0] for kind in MUTATIONS}
    found, wrong = [], []
    slowest = [0.0, ""]
    start = time.time()
    runs = 0
    with concurrent.futures.ProcessPoolExecutor(args.jobs) as pool:
        for done, (job, results) in enumerate(zip(jobs, pool.map(run_job, work, chunksize=4))):
            for kind in set(job[2]):
                per_kind.setdefault(kind, [0, 0])[0] += 1
            for config, klass, detail, seconds in results:
                counts[(config, klass)] += 1
                runs += 1
                if klass != "hang" and seconds > slowest[0]:
                    slowest[:] = [seconds, f"{work[done][3].name} [{config}]"]
                if klass in BAD:
                    found.append((job, config, klass, detail))
                    for kind in set(job[2]):
                        per_kind[kind][1] += 1
                elif args.replay:
                    wrong.extend(unexpected_error(job[1], config, klass, detail))
            if (done + 1) % 250 == 0:
                bad = sum(v for (_, k), v in counts.items() if k in BAD)
                print(f"  {done + 1}/{len(jobs)} kernels, {runs} runs, {bad} bad, "
                      f"{time.time() - start:.0f} s", flush=True)
    bad_lines = []
    for job, config, klass, detail in found:
        kept = job[1] if args.replay else keep_bad(args, job, config, klass, detail)
        bad_lines.append(f"{klass} [{config}] {kept}: {detail}")
    bad = summary(args, counts, per_kind, time.time() - start, len(jobs), runs,
                  bad_lines + wrong)
    print(f"slowest run that finished: {slowest[0]:.2f} s ({slowest[1]})")
    return 1 if bad or wrong else 0


def unexpected_error(path, config, klass, detail):
    """Replay: a `# expect-error: TEXT` line asks for a located error whose
    first line holds TEXT."""
    text = decode(path.read_bytes())
    if re.search(r"^# expect-ok$", text, re.M) and klass != "ok":
        return [f"wrong outcome [{config}] {path}: {klass} {detail!r}, expected exit 0"]
    expected = re.findall(r"^# expect-error: (.*)$", text, re.M)
    if not expected:
        return []
    if klass != "located" or expected[0].strip() not in detail:
        return [f"wrong outcome [{config}] {path}: {klass} {detail!r}, expected an error "
                f"holding {expected[0].strip()!r}"]
    return []


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
