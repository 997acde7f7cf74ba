"""Checks of the mutation campaign itself (campaign.py), with a stand-in
compiler whose behaviour each test picks: every outcome is classified as
it should be (a crash, exit 2, a hang, a module that does not parse, an
error without a location or with a line past the end of the file are bad;
exit 0 with parsing modules and a located error are not), the mutations
are deterministic per seed and each kind changes a file, a bad run makes
the campaign exit 1 and keeps the input with its reproducing command, and
--minimize keeps what makes the run bad while dropping the rest."""
import os
import pathlib
import random
import stat
import subprocess
import sys
import tempfile

import campaign

# The stand-in for `tessera compile FILE --config=C --emit=code --output=DIR/`:
# what it does is $FAKE_MODE, or "exit2 when the file holds KEEP" for
# keep_exit2.
FAKE = r'''
import os, pathlib, signal, sys, time
path = pathlib.Path(sys.argv[2])
out = pathlib.Path(next(a for a in sys.argv if a.startswith("--output="))[9:])
mode = os.environ.get("FAKE_MODE", "ok")
if mode == "keep_exit2":
    mode = "exit2" if b"KEEP" in path.read_bytes() else "located"
if mode == "ok":
    (out / "k_pallas.py").write_text("def k(x):\n    return x\n")
elif mode == "unparseable":
    (out / "k_pallas.py").write_text("def k(x):\n    return x\n")
    (out / "k_helpers.py").write_text("def k_kernel(x):\n    # src: 3:1\n")
elif mode == "crash":
    os.kill(os.getpid(), signal.SIGSEGV)
elif mode == "hang":
    time.sleep(30)
elif mode == "exit2":
    print(f"{path}: internal error: a module that does not parse", file=sys.stderr)
    sys.exit(2)
elif mode == "exit3":
    sys.exit(3)
elif mode == "unlocated":
    print(f"{path}: error: the input IR fails verification", file=sys.stderr)
    print(f"{path}:3:1: error: parameter 'w' is declared twice", file=sys.stderr)
    sys.exit(1)
elif mode == "past_end":
    print(f"{path}:9999:1: error: somewhere", file=sys.stderr)
    sys.exit(1)
elif mode == "located":
    print(f"warning: a note first", file=sys.stderr)
    print(f"{path}:2:5: error: unknown function 'torch.sigmoidd'", file=sys.stderr)
    sys.exit(1)
'''

KERNEL = b'''import torch
import helion
import helion.language as hl


@helion.kernel()
def add(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    for tile in hl.tile(out.size()):
        out[tile] = x[tile] + y[tile] * 2.0
    return out
'''


def make_fake(folder):
    script = folder / "fake_tessera.py"
    script.write_text(FAKE)
    wrapper = folder / "tessera"
    wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{script}" "$@"\n')
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IEXEC)
    return wrapper


def make_source_dir(folder):
    (folder / "configs").mkdir(parents=True)
    for name in campaign.CONFIGS:
        (folder / "configs" / f"{name}.toml").write_text("")
    (folder / "examples").mkdir()
    (folder / "examples" / "add.py").write_bytes(KERNEL)
    (folder / "examples" / "notes.py").write_bytes(b"x = 1\n")   # no kernel: not a base
    return folder


def check_classes(fake, folder):
    kernel = folder / "kernel.py"
    kernel.write_bytes(KERNEL)
    expected = {"ok": "ok", "unparseable": "unparseable", "crash": "crash", "hang": "hang",
                "exit2": "exit2", "exit3": "other_exit", "unlocated": "unlocated",
                "past_end": "unlocated", "located": "located"}
    for mode, klass in expected.items():
        os.environ["FAKE_MODE"] = mode
        got, detail, _ = campaign.classify(fake, kernel, folder / "c.toml", folder / "out",
                                           timeout=3 if mode == "hang" else 30)
        assert got == klass, (mode, got, detail)
        assert (klass in campaign.BAD) == (mode not in ("ok", "located")), mode
    os.environ["FAKE_MODE"] = "unparseable"   # names the module that does not parse
    assert campaign.classify(fake, kernel, folder / "c.toml", folder / "out", 30)[1].startswith(
        "k_helpers.py"), "unparseable"


class Args:
    seed, count, rotate = 5, 60, False
    config_names = list(campaign.CONFIGS)


def check_mutations(folder):
    sources = campaign.kernel_files(make_source_dir(folder / "src"))
    assert [p.name for p in sources] == ["add.py"], sources
    first, again = campaign.plan(Args, sources), campaign.plan(Args, sources)
    assert [j[3] for j in first] == [j[3] for j in again]
    other = Args()
    other.seed = 6
    assert [j[3] for j in campaign.plan(other, sources)] != [j[3] for j in first]
    assert all(j[3] != KERNEL and j[4] == list(campaign.CONFIGS) for j in first)
    rotate = Args()
    rotate.rotate = True
    assert [j[4] for j in campaign.plan(rotate, sources)[:5]] == [[c] for c in campaign.CONFIGS]
    text = campaign.decode(KERNEL)
    for kind in campaign.MUTATIONS:
        changed = sum(campaign.mutate_once(text, kind, random.Random(f"{kind}{n}"), [KERNEL]) != text
                      for n in range(20))
        assert changed >= 10, (kind, changed)
    # Invalid UTF-8 goes through a mutation as the same bytes.
    raw = KERNEL.replace(b"2.0", b"2.0 \xff")
    assert campaign.encode(campaign.decode(raw)) == raw


def run_campaign(fake, source_dir, work, mode, *extra):
    env = dict(os.environ, FAKE_MODE=mode)
    return subprocess.run(
        [sys.executable, str(pathlib.Path(__file__).with_name("campaign.py")), "--tessera",
         str(fake), "--source-dir", str(source_dir), "--work-dir", str(work), "--count", "6",
         "--jobs", "2", "--plain", "--seed", "1", *extra],
        capture_output=True, text=True, env=env, timeout=600)


def check_end_to_end(fake, folder):
    source_dir = folder / "src"
    ok = run_campaign(fake, source_dir, folder / "w_ok", "ok")
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "6 mutated kernels, 30 runs" in ok.stdout and "ok 30," in ok.stdout, ok.stdout
    bad = run_campaign(fake, source_dir, folder / "w_bad", "exit2", "--configs", "rotate")
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert "6 runs" in bad.stdout and "exit2 6," in bad.stdout, bad.stdout
    kept = sorted((folder / "w_bad" / "bad" / "exit2").glob("*.txt"))
    assert len(kept) == 6, kept
    assert "reproduce: " in kept[0].read_text() and "--config=" in kept[0].read_text()
    # --minimize: the kept file still gives exit 2 (it holds KEEP) and is smaller.
    base = source_dir / "examples" / "add.py"
    base.write_bytes(KERNEL.replace(b"return out", b"return out  # KEEP"))
    small = run_campaign(fake, source_dir, folder / "w_min", "keep_exit2", "--minimize",
                         "--configs", "pallas_unroll")
    assert small.returncode == 1, small.stdout + small.stderr
    minimal = sorted((folder / "w_min" / "bad" / "exit2").glob("*.min.py"))
    assert minimal, small.stdout
    for path in minimal:
        data = path.read_bytes()
        assert b"KEEP" in data and len(data) < len(KERNEL) // 4, data


def main():
    with tempfile.TemporaryDirectory() as tmp:
        folder = pathlib.Path(tmp)
        fake = make_fake(folder)
        check_classes(fake, folder)
        check_mutations(folder)
        check_end_to_end(fake, folder)
    print("mutation campaign selftest: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
