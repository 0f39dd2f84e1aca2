"""Array libraries under test, the random seed, and conversions to NumPy.

Every test that takes `xp` runs once per available library: NumPy and torch
CPU tensors (the CPU back end), and CuPy and torch CUDA tensors (the GPU back
end) where a GPU and the _cuda module are there. Inputs are fresh random data
each run; the seed is printed in the report header (set STREAMSCAN_TEST_SEED
to repeat a run).
"""

import os
import random

import numpy as np
import pytest

import streamscan

SEED = int(os.environ.get("STREAMSCAN_TEST_SEED", random.SystemRandom().randrange(2**32)))


def pytest_report_header(config):
    return [f"streamscan: seed {SEED} (STREAMSCAN_TEST_SEED), backends cpu" + (", cuda" if streamscan.has_cuda else "")]


def _gpu_count():
    if not streamscan.has_cuda:
        return 0
    try:
        import cupy
        return cupy.cuda.runtime.getDeviceCount()
    except Exception:
        try:
            import torch
            return torch.cuda.device_count()
        except Exception:
            return 0


GPUS = _gpu_count()


class Lib:
    """How a test makes arrays of one library and reads them back."""

    def __init__(self, name, gpu):
        self.name, self.gpu = name, gpu

    def __repr__(self):
        return self.name

    def asarray(self, a, dtype=None):
        a = np.array(a, order="C")
        if dtype == "bfloat16":  # torch only: made from float32
            import torch
            return torch.from_numpy(a.astype(np.float32)).to(torch.bfloat16).to("cuda" if self.gpu else "cpu")
        if self.name == "numpy":
            return a.copy()
        if self.name.startswith("cupy"):
            import cupy
            return cupy.asarray(a)
        import torch
        return torch.from_numpy(a.copy()).to("cuda" if self.gpu else "cpu")

    def numpy(self, a):
        if isinstance(a, np.ndarray):
            return a
        if type(a).__module__.startswith("cupy"):
            return a.get()
        import torch
        if a.dtype == torch.bfloat16:
            a = a.float()
        return a.cpu().numpy()

    def is_native(self, a):
        root = type(a).__module__.split(".")[0]
        return root == self.name.split("-")[0]

    def synchronize(self):
        if self.name.startswith("cupy"):
            import cupy
            cupy.cuda.get_current_stream().synchronize()
        elif self.name == "torch-cuda":
            import torch
            torch.cuda.synchronize()


def _libs():
    out = [pytest.param(Lib("numpy", False), id="numpy")]
    try:
        import torch  # noqa: F401
        out.append(pytest.param(Lib("torch", False), id="torch-cpu"))
        if GPUS:
            out.append(pytest.param(Lib("torch-cuda", True), id="torch-cuda"))
    except ImportError:
        pass
    if GPUS:
        try:
            import cupy  # noqa: F401
            out.append(pytest.param(Lib("cupy", True), id="cupy"))
        except ImportError:
            pass
    return out


@pytest.fixture(params=_libs())
def xp(request):
    return request.param


@pytest.fixture
def rng(request):
    # One generator per test, derived from the run's seed and the test's name.
    return np.random.default_rng([SEED, abs(hash(request.node.nodeid)) % (2**32)])


TORCH_DTYPES = {"bool", "int8", "int16", "int32", "int64", "uint8", "float16", "bfloat16", "float32", "float64"}


def supports(xp, dtype):
    """Whether the library has the dtype (torch lacks most unsigned ones; NumPy and CuPy lack bfloat16)."""
    if xp.name.startswith("torch"):
        return dtype in TORCH_DTYPES
    return dtype != "bfloat16"
