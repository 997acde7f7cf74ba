"""tessera.helion: Helion programs and tests run unchanged with their
kernels compiled by Tessera (the shim when Helion is absent, the takeover
of an installed helion's decorator, Helion's Kernel / BoundKernel API, and
the suite runner)."""

import json
import os
import pathlib
import subprocess
import sys
import warnings

import pytest
import torch

import tessera
import tessera.helion

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
PROGRAMS = HERE / "programs"


def _environment(**extra):
    environment = dict(os.environ)
    environment["PYTHONPATH"] = os.pathsep.join(
        [str(ROOT / "python"), *filter(None, [environment.get("PYTHONPATH")])])
    environment.update(extra)
    return environment


@pytest.fixture
def drop_in():
    """The drop-in installed with the shim (no helion package here), and a
    fresh import of our program."""
    tessera.helion.install()
    sys.modules.pop("gated_units", None)
    sys.path.insert(0, str(PROGRAMS))
    try:
        import gated_units

        yield gated_units
    finally:
        sys.path.remove(str(PROGRAMS))
        sys.modules.pop("gated_units", None)
        tessera.helion.uninstall()


def test_shim_provides_helions_names(drop_in):
    import helion
    import helion.language as hl

    assert helion.kernel is tessera.helion.kernel and helion.jit is tessera.helion.kernel
    assert helion.cdiv(1000, 128) == 8 and helion.next_power_of_2(100) == 128
    assert helion.Config(block_sizes=[8, 128], num_warps=4).config == {
        "block_sizes": [8, 128], "num_warps": 4}
    assert callable(hl.tile)
    assert isinstance(drop_in.gated_silu, tessera.helion.Kernel)


def test_uninstall_removes_the_shim():
    tessera.helion.install()
    assert getattr(sys.modules["helion"], "__tessera_shim__", False)
    tessera.helion.uninstall()
    assert "helion" not in sys.modules and not tessera.helion.installed()


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float16])
def test_dtype_and_shape_bound_at_the_call(drop_in, dtype):
    # The same kernel for several dtypes and ranks: each call compiles for
    # what it is given (Helion's users pass bf16 / f16 as often as f32).
    for shape in [(16, 256), (4, 8, 128)]:
        a, b = torch.randn(shape, dtype=dtype), torch.randn(shape, dtype=dtype)
        out = drop_in.gated_silu(a, b)
        assert out.dtype == dtype and out.shape == a.shape
        expected = torch.nn.functional.silu(a.float()) * b.float()
        tolerance = 1e-4 if dtype == torch.float32 else 2e-2
        torch.testing.assert_close(out.float(), expected, rtol=tolerance, atol=tolerance)


def test_autograd_function_around_kernels(drop_in):
    drop_in.main(32)  # asserts against PyTorch's own gradients


def test_config_blocks_are_used_where_they_compile(drop_in):
    import helion

    x, y = torch.randn(64, 256), torch.randn(256, 256)
    kernel = drop_in.scaled_matmul
    bound = kernel.bind((x, y))
    config = helion.Config(block_sizes=[16, 128, 128])
    compiled = bound.compile_config(config)
    torch.testing.assert_close(compiled(x, y), x @ y, rtol=1e-4, atol=1e-3)
    assert kernel._runtime_kernel(config).bind(x, y).config["block_sizes"] == [16, 128, 128]
    assert "def scaled_matmul(" in bound.to_triton_code(config)
    assert bound.config_spec.unsupported_config_keys({"block_sizes": [1], "num_warps": 4}) == [
        "num_warps"]


def test_config_blocks_the_target_rejects_fall_back_with_a_warning(drop_in):
    import helion

    x, y = torch.randn(64, 256), torch.randn(256, 256)
    kernel = drop_in.scaled_matmul
    kernel.configs = [helion.Config(block_sizes=[16, 16, 16])]  # lanes of 16: not TPU-legal
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = kernel(x, y)
    torch.testing.assert_close(out, x @ y, rtol=1e-4, atol=1e-3)
    messages = [str(w.message) for w in caught]
    assert any("block_sizes=[16, 16, 16]" in m and "using the blocks Tessera chooses" in m
               for m in messages), messages
    assert all(w.filename.endswith("gated_units.py") for w in caught
               if "block_sizes=" in str(w.message))


def test_ignored_config_keys_warn_once_each(drop_in):
    import helion

    from tessera.helion import _kernel

    _kernel._warned_keys.discard("num_stages")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(3):
            helion.kernel(drop_in.gated_silu.fn, config=helion.Config(num_stages=3))
    assert [str(w.message) for w in caught].count(
        "helion.Config key 'num_stages' has no meaning for Tessera's pipeline; ignored "
        "(this warning is shown once per key)") == 1


def test_callables_capture_tensors_as_kernel_arguments(drop_in):
    # Helion lifts a tensor captured by an epilogue to a kernel argument; a
    # [1, n] bias read with bias[tile] broadcasts its row.
    x, y, bias = torch.randn(64, 256), torch.randn(256, 256), torch.randn(1, 256)
    out = drop_in.scaled_matmul(x, y, lambda acc, tile: torch.relu(acc + bias[tile]))
    torch.testing.assert_close(out, torch.relu(x @ y + bias), rtol=1e-4, atol=1e-3)

    def add_bias(acc: torch.Tensor, tile: tuple) -> torch.Tensor:
        return acc * 2.0 + bias[tile[0], tile[1]]

    out = drop_in.scaled_matmul(x, y, add_bias)  # annotated: inlined as a lambda
    torch.testing.assert_close(out, 2.0 * (x @ y) + bias, rtol=1e-4, atol=1e-3)


def test_a_callable_object_forwarding_to_a_closure(drop_in):
    # An epilogue object whose __call__ forwards to a callable attribute
    # (Helion's epilogue wrappers) is the closure it forwards to.
    class AddRow:
        def __init__(self, row):
            self.row = row

        @property
        def fn(self):
            row = self.row

            def epilogue(acc, tile):
                return acc + row[tile[1]]

            return epilogue

        def __call__(self, acc, tile):
            return self.fn(acc, tile)

    x, y, row = torch.randn(64, 256), torch.randn(256, 256), torch.randn(256)
    out = drop_in.scaled_matmul(x, y, AddRow(row))
    torch.testing.assert_close(out, x @ y + row, rtol=1e-4, atol=1e-3)


def test_hl_dot_without_accumulator_is_float32(drop_in):
    x = torch.randn(64, 128, dtype=torch.bfloat16)
    y = torch.randn(128, 256, dtype=torch.bfloat16)
    out = drop_in.dot_f32(x, y)
    exact = x.double() @ y.double()
    # A product rounded to bf16 would be off by up to 2**-9 of its size.
    torch.testing.assert_close(out.double(), exact, rtol=1e-5, atol=1e-4)


def test_float8_meets_float32_as_in_pytorch(drop_in):
    base = torch.randn(32, 256)
    x = torch.randn(32, 256).to(torch.float8_e4m3fn)
    out = drop_in.fp8_floor(base, x)
    assert out.dtype == torch.float32
    halved = (x.float() * 0.5).to(torch.float8_e4m3fn)  # x * 0.5 stays float8
    torch.testing.assert_close(out, torch.maximum(base, halved.float()))


def test_a_kernel_that_does_not_compile_fails_alone(drop_in):
    a = torch.randn(16, 256)
    with pytest.raises(tessera.CompileError) as error:
        drop_in.does_not_compile(a)
    assert "gated_units.py:" in str(error.value) and error.value.line > 0
    # Its siblings in the file still compile and run.
    torch.testing.assert_close(drop_in.gated_silu(a, a),
                               torch.nn.functional.silu(a) * a, rtol=1e-4, atol=1e-4)


def test_python_dash_m_runs_a_program_unchanged():
    result = subprocess.run(
        [sys.executable, "-m", "tessera.helion", str(PROGRAMS / "gated_units.py"), "24"],
        capture_output=True, text=True, env=_environment(), timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    assert ("gated_units: forward and backward match PyTorch for 24 rows "
            "(kernel type tessera.helion._kernel.Kernel)") in result.stdout


def test_install_takes_over_an_installed_helion():
    script = (
        "import helion, helion.runtime, tessera.helion\n"
        "original = helion.kernel\n"
        "tessera.helion.install()\n"
        "assert helion.kernel is tessera.helion.kernel, helion.kernel\n"
        "assert helion.jit is tessera.helion.kernel\n"
        "assert helion.runtime.kernel is tessera.helion.kernel\n"
        "assert not getattr(helion, '__tessera_shim__', False)\n"
        "assert tessera.helion._settings.make_config({}).__class__ is helion.Config\n"
        "tessera.helion.uninstall()\n"
        "assert helion.kernel is original and helion.runtime.kernel is original\n"
        "print('taken over and given back')\n")
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=300,
        env=_environment(PYTHONPATH=os.pathsep.join([str(HERE / "fake_helion"),
                                                      str(ROOT / "python")])))
    assert result.returncode == 0, result.stderr[-3000:]
    assert "taken over and given back" in result.stdout


def test_suite_runner_writes_a_per_test_table(tmp_path):
    out = tmp_path / "table"
    result = subprocess.run(
        [sys.executable, "-m", "tessera.helion.suite", str(HERE / "fake_checkout"),
         "--out", str(out)],
        capture_output=True, text=True, env=_environment(), timeout=900)
    assert result.returncode == 1, result.stdout[-3000:] + result.stderr[-3000:]  # 1 wrong
    assert "1 pass of 3 run" in result.stdout, result.stdout[-3000:]
    report = json.loads((out / "suite_default_backend.json").read_text())
    status = {test["test"].split("::")[-1]: test for test in report["tests"]}
    assert status["test_passes"]["status"] == "pass"
    assert status["test_wrong_expected_value"]["status"] == "wrong result"
    assert status["test_compile_error"]["status"] == "compile error"
    assert "gated_units.py:" in status["test_compile_error"]["detail"]
    assert status["test_needs_a_gpu"]["status"] == "skipped"
    assert report["summary"]["pass"] == 1 and report["summary"]["skipped"] == 1
    table = (out / "suite_default_backend.md").read_text()
    assert "**1 of 3 tests that ran pass**" in table
    assert "| `TestExamples::test_wrong_expected_value` | wrong result |" in table
