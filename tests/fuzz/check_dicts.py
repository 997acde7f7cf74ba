"""Checks the libFuzzer dictionaries of tests/fuzz/dict: every entry is
`name="value"` with only the escapes libFuzzer reads (\\\\, \\" and \\xNN),
names and values are not repeated within a file, and the helion_frontend
dictionary holds the tokenizer edges issue 33 asks the fuzzers to reach
(tabs, form feeds, line continuations, CR, NBSP, U+202E, a BOM, NUL,
invalid UTF-8 and nested f-string quotes)."""
import pathlib
import re
import sys

ENTRY = re.compile(r'^([A-Za-z_][A-Za-z0-9_]*)?="((?:[^"\\]|\\\\|\\"|\\x[0-9A-Fa-f]{2})*)"$')
REQUIRED = {"tab": b"\t", "form feed": b"\x0c", "continuation": b"\\\n",
            "CRLF continuation": b"\\\r\n", "CR": b"\r", "NBSP": "\u00a0".encode(),
            "U+202E": "\u202e".encode(), "BOM": b"\xef\xbb\xbf", "NUL": b"\x00",
            "invalid UTF-8": b"\xff", "nested f-string quotes": b'f"{x["a"]}"'}


def unescape(text):
    out, i = bytearray(), 0
    while i < len(text):
        if text[i] == "\\":
            if text[i + 1] == "x":
                out.append(int(text[i + 2:i + 4], 16))
                i += 4
                continue
            out.append(ord(text[i + 1]))
            i += 2
            continue
        out += text[i].encode()
        i += 1
    return bytes(out)


def entries(path):
    names, values = set(), set()
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        match = ENTRY.match(line)
        assert match, f"{path}:{number}: not a dictionary entry: {line!r}"
        name, value = match.group(1), unescape(match.group(2))
        assert value, f"{path}:{number}: empty value"
        assert name is None or name not in names, f"{path}:{number}: name {name} repeated"
        assert value not in values, f"{path}:{number}: value {value!r} repeated"
        names.add(name)
        values.add(value)
    return values


def main():
    folder = pathlib.Path(__file__).resolve().parent / "dict"
    found = {path.name: entries(path) for path in sorted(folder.glob("*.dict"))}
    assert "helion_frontend.dict" in found, sorted(found)
    frontend = found["helion_frontend.dict"]
    missing = [what for what, token in REQUIRED.items()
               if not any(token in value for value in frontend)]
    assert not missing, f"helion_frontend.dict lacks: {missing}"
    print(f"fuzz dictionaries: {', '.join(f'{n} ({len(v)} entries)' for n, v in found.items())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
