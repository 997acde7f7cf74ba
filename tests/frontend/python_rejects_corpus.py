"""Mutation corpus for issue 33, item 2: whenever CPython rejects a mutated
example kernel file, `tessera compile` rejects it too, with exit 1 and a
located `file:line:col: error:`; no mutation may make it exit 2 or crash.

The mutations are tokenizer-level, from a fixed seed: dedent a line, put a
line at column 0, insert a tab into an indentation, drop a closing bracket,
insert a NUL byte, an invalid UTF-8 sequence, a no-break space (U+00A0) or a
right-to-left override (U+202E) at a random place.

Python's verdict is the one for the file as a script: decoded strictly as
its declared encoding (UTF-8 by default), then `ast.parse`.

usage: python_rejects_corpus.py --tessera BIN --examples DIR --out DIR
       [--per-file N] [--seed S] [--jobs J]
The ctest run uses the defaults (20 mutations per example file, seed 33);
a longer campaign raises --per-file and varies --seed.
"""
import argparse
import ast
import concurrent.futures
import io
import pathlib
import random
import re
import subprocess
import sys
import tokenize

MUTATIONS = ["dedent", "column0", "tab", "drop_bracket", "nul", "bad_utf8",
             "nbsp", "rlo"]


def python_rejects(data: bytes) -> bool:
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        text = data.decode(encoding)
        ast.parse(text)
    except (SyntaxError, ValueError, UnicodeDecodeError, LookupError):
        return True
    return False


def indented_lines(lines):
    return [i for i, line in enumerate(lines)
            if line.strip() and line[:1] in (" ", "\t")]


def mutate(data: bytes, kind: str, rng: random.Random) -> bytes:
    lines = data.split(b"\n")
    indented = indented_lines([ln.decode("utf-8", "replace") for ln in lines])
    if kind in ("dedent", "column0", "tab") and indented:
        i = rng.choice(indented)
        line = lines[i]
        body = line.lstrip(b" \t")
        indent = line[:len(line) - len(body)]
        if kind == "column0":
            lines[i] = body
        elif kind == "dedent":
            drop = rng.choice([1, 2, 4, len(indent)])
            lines[i] = indent[min(drop, len(indent)):] + body
        else:
            choice = rng.randrange(3)
            if choice == 0:
                lines[i] = b"\t" + indent + body
            elif choice == 1 and indent.startswith(b" " * 8):
                lines[i] = b"\t" + indent[8:] + body
            else:
                lines[i] = indent.replace(b"    ", b"\t", 1) + body
        return b"\n".join(lines)
    if kind == "drop_bracket":
        spots = [m.start() for m in re.finditer(rb"[)\]}]", data)]
        if spots:
            at = rng.choice(spots)
            return data[:at] + data[at + 1:]
        return data
    insert = {
        "nul": b"\x00",
        "bad_utf8": rng.choice([b"\xff", b"\xc3", b"\xed\xa0\x80", b"\x80"]),
        "nbsp": "\u00a0".encode(),
        "rlo": "\u202e".encode(),
    }.get(kind, b"\x00")
    at = rng.randrange(len(data) + 1)
    return data[:at] + insert + data[at:]


def run_one(tessera: str, path: pathlib.Path, out: pathlib.Path):
    proc = subprocess.run(
        [tessera, "compile", str(path), "--emit=ir", "-o", str(out)],
        capture_output=True, timeout=60)
    return proc.returncode, proc.stderr.decode("utf-8", "replace")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tessera", required=True)
    parser.add_argument("--examples", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--per-file", type=int, default=20)
    parser.add_argument("--seed", type=int, default=33)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    out_dir = pathlib.Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    sources = sorted(p for p in pathlib.Path(args.examples).glob("*.py")
                     if b"@helion.kernel" in p.read_bytes())
    jobs = []
    for source in sources:
        data = source.read_bytes()
        rng = random.Random(f"{args.seed}:{source.name}")
        for n in range(args.per_file):
            kind = MUTATIONS[(n + rng.randrange(len(MUTATIONS)))
                             % len(MUTATIONS)]
            mutated = mutate(data, kind, rng)
            if mutated == data:
                continue
            path = out_dir / f"{source.stem}__{n}_{kind}.py"
            path.write_bytes(mutated)
            jobs.append((path, kind, python_rejects(mutated)))

    failures = []
    counts = {"python_rejects": 0, "both_reject": 0, "exit0": 0, "exit1": 0}
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        results = pool.map(
            lambda job: run_one(args.tessera, job[0],
                                job[0].with_suffix(".tir")), jobs)
        for (path, kind, rejected), (code, stderr) in zip(jobs, results):
            counts["exit0" if code == 0 else "exit1"] += code in (0, 1)
            located = re.search(re.escape(str(path)) + r":\d+:\d+: error:",
                                stderr)
            problem = None
            if code not in (0, 1):
                problem = f"exit {code} (crash or internal error)"
            elif code == 1 and not located:
                problem = "exit 1 without a located error"
            elif rejected:
                counts["python_rejects"] += 1
                if code == 0:
                    problem = "Python rejects it but tessera exits 0"
                else:
                    counts["both_reject"] += 1
            if problem:
                failures.append(f"{path.name} ({kind}): {problem}\n"
                                + stderr[:600])
    print(f"{len(jobs)} mutated files from {len(sources)} examples: "
          f"{counts['python_rejects']} rejected by Python, "
          f"{counts['both_reject']} of them by tessera too; "
          f"tessera exit 0: {counts['exit0']}, exit 1: {counts['exit1']}")
    for failure in failures:
        print("FAIL", failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
