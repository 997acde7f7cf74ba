"""A stand-in for a Helion checkout's test/test_examples.py, with tests of
our own kernels: one that passes, one whose expected value is wrong, one
whose kernel does not compile and one skipped for a missing device."""

import pathlib
import sys
import unittest

import torch

PROGRAMS = pathlib.Path(__file__).resolve().parents[2] / "programs"
sys.path.insert(0, str(PROGRAMS))

import gated_units  # noqa: E402  (imported after the drop-in is installed)


class TestExamples(unittest.TestCase):
    def test_passes(self):
        a, b = torch.randn(16, 256), torch.randn(16, 256)
        torch.testing.assert_close(gated_units.gated_silu(a, b),
                                   torch.nn.functional.silu(a) * b, rtol=1e-4, atol=1e-4)

    def test_wrong_expected_value(self):
        a, b = torch.randn(16, 256), torch.randn(16, 256)
        torch.testing.assert_close(gated_units.gated_silu(a, b), torch.zeros(16, 256))

    def test_compile_error(self):
        gated_units.does_not_compile(torch.randn(16, 256))

    def test_needs_a_gpu(self):
        raise unittest.SkipTest("CUDA (NVIDIA GPU) is not available")
