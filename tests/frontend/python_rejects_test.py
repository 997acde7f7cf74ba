"""CLI regression tests for issue 33 (items 2 and 3): a kernel file that
CPython rejects, or an expression too deep or too long, is one located
error with exit code 1, never exit 0 and never a crash; a diagnostic on a
huge line quotes a window of it.

usage: python_rejects_test.py TESSERA SOURCE_DIR OUT_DIR CASE

The small inputs are tests/driver/inputs/python_rejects/*.py; the long ones
are generated here.
"""
import pathlib
import re
import subprocess
import sys

# case -> (file name, line, col, part of the message); line None: exit 0.
CASES = {
    "col0_if": ("col0_if.py", 15, 5, "unindent does not match any outer"),
    "tab_space_mix": ("tab_space_mix.py", 12, 2, "inconsistent use of tabs"),
    "unindent_mismatch": ("unindent_mismatch.py", 12, 7, "unindent does not"),
    "unclosed_paren": ("unclosed_paren.py", 12, 12, "'(' was never closed"),
    "nul_byte": ("nul_byte.py", 11, 45, "null bytes"),
    "invalid_utf8": ("invalid_utf8.py", 11, 42, "invalid UTF-8"),
    "nbsp_identifier": ("nbsp_identifier.py", 11, 32, "U+00A0"),
    "bidi_control": ("bidi_control.py", 11, 38, "U+202E"),
    "unexpected_indent": ("unexpected_indent.py", 12, 13, "unexpected indent"),
    "expected_block": ("expected_block.py", 12, 9, "expected an indented"),
    "stray_else": ("stray_else.py", 12, 9, "'else' does not continue"),
    "unterminated_string": ("unterminated_string.py", 12, 28, "unterminated"),
    "invalid_character": ("dollar.py", 11, 39, "invalid character '$'"),
    "binary_garbage": ("garbage.py", 1, None, ""),
    "subscript_chain_4000": ("chain.py", 11, 21, "expression is too deep"),
    "plus_terms_10000": ("plus.py", 11, 21, "expression is too deep"),
    "line_10mb": ("line_10mb.py", 11, 21, "expression is too deep"),
    "elif_chain_10000": ("elif.py", None, None, "too many 'elif' branches"),
    "name_10mb": ("name_10mb.py", 11, 21, "undefined name"),
    "python_accepts": ("unicode_ok.py", None, None, None),
}

HEAD = (
    "import torch\n\nimport helion\nimport helion.language as hl\n\n\n"
    "@helion.kernel()\n"
    "def add(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:\n"
    "    out = torch.empty_like(x)\n"
    "    for tile in hl.tile(x.size(0)):\n"
)  # body lines start at 11


def generate(name: str, out_dir: pathlib.Path) -> pathlib.Path:
    path = out_dir / name
    if name == "chain.py":
        body = "        out[tile] = x[tile]" + "[0]" * 4000 + "\n"
    elif name == "plus.py":
        body = "        out[tile] = " + " + ".join(["x[tile]"] * 10000) + "\n"
    elif name == "line_10mb.py":
        body = "        out[tile] = x[tile]" + " + y" * (10 * 2**20 // 4) + "\n"
    elif name == "name_10mb.py":
        body = "        out[tile] = " + "a" * (10 * 2**20) + "\n"
    elif name == "elif.py":
        body = "        if x.size(0) == 0:\n            out[tile] = x[tile]\n"
        body += "".join(
            f"        elif x.size(0) == {i}:\n            out[tile] = y[tile]\n"
            for i in range(1, 10000))
    elif name == "garbage.py":
        # Deterministic bytes that look like nothing (an ELF header, a PNG
        # signature, random data with NUL and invalid UTF-8).
        import random
        rng = random.Random(33)
        data = b"\x7fELF\x02\x01\x01\x00" + b"\x89PNG\r\n\x1a\n"
        data += bytes(rng.randrange(256) for _ in range(4096))
        path.write_bytes(data)
        return path
    else:
        return pathlib.Path(name)
    path.write_text(HEAD + body + "    return out\n")
    return path


def main() -> int:
    tessera, source_dir, out_dir, case = sys.argv[1:5]
    out_dir = pathlib.Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    name, line, col, part = CASES[case]
    path = generate(name, out_dir)
    inputs = pathlib.Path(source_dir) / "tests/driver/inputs/python_rejects"
    if not path.is_absolute():
        path = inputs / name
    proc = subprocess.run(
        [tessera, "compile", str(path), "--emit=ir", "-o",
         str(out_dir / f"{case}.tir")],
        capture_output=True, timeout=120)
    stderr = proc.stderr.decode("utf-8", "replace")
    failures = []
    if proc.returncode < 0 or proc.returncode >= 128:
        failures.append(f"crashed (exit {proc.returncode})")
    if part is None:
        if proc.returncode != 0:
            failures.append(f"exit {proc.returncode}, expected 0")
    else:
        if proc.returncode != 1:
            failures.append(f"exit {proc.returncode}, expected 1")
        located = re.search(
            re.escape(str(path)) + r":(\d+):(\d+): error: (.*)", stderr)
        if not located:
            failures.append("no located 'file:line:col: error:' message")
        else:
            got_line, got_col = int(located.group(1)), int(located.group(2))
            if line is not None and got_line != line:
                failures.append(f"line {got_line}, expected {line}")
            if col is not None and got_col != col:
                failures.append(f"col {got_col}, expected {col}")
            if part not in located.group(3):
                failures.append(f"message lacks {part!r}")
    # A diagnostic quotes a window of a long line, not the line, and the
    # head of a long message.
    if len(stderr) > 4000:
        failures.append(f"stderr is {len(stderr)} characters")
    if failures:
        print(f"FAIL {case}: " + "; ".join(failures))
        print(stderr[:4000])
        return 1
    print(f"ok {case}: exit {proc.returncode}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
