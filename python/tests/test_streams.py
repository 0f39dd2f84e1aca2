"""Calls on a stream of the caller's (GPU only): `stream=` naming a stream that
is not the current one, the count a selection reads back on that stream, and
a scan captured into a CUDA graph (torch).

Each test keeps the side stream busy (a spin kernel), then writes the input
there: a call that ran on another stream would read the input before it is
written, and a count read on another stream would be read before it is made.
"""

import numpy as np
import pytest

import streamscan as ss
from conftest import GPUS

pytestmark = pytest.mark.skipif(not GPUS, reason="needs a GPU and streamscan's CUDA module")

SPIN_CYCLES = 20_000_000  # ~10 ms


def _torch():
    return pytest.importorskip("torch")


def _cupy_spin(cupy):
    kernel = cupy.RawKernel(r"""
extern "C" __global__ void spin(long long cycles) {
  const long long start = clock64();
  while (clock64() - start < cycles) {}
}""", "spin")
    return lambda: kernel((1,), (1,), (np.int64(SPIN_CYCLES),))


def _values(rng, n):
    return rng.integers(-1000, 1000, n, dtype=np.int32)


@pytest.mark.parametrize("n", [1000, 300_001])
def test_torch_explicit_stream(rng, n):
    torch = _torch()
    values = _values(rng, n)
    source = torch.from_numpy(values).cuda()
    x = torch.zeros(n, dtype=torch.int32, device="cuda")
    side = torch.cuda.Stream()
    torch.cuda.synchronize()
    with torch.cuda.stream(side):
        torch.cuda._sleep(SPIN_CYCLES)
        x.copy_(source)
    # The current stream is the default one; every call names the side stream.
    scanned = ss.inclusive_scan(x, stream=side)
    summed = ss.exclusive_scan(x, "max", initial=-5000, stream=side.cuda_stream)
    kept = ss.select_if(x, "<", 0, stream=side)  # reads its count back on the side stream
    ordered = ss.sort(x, stream=side)
    side.synchronize()
    assert np.array_equal(scanned.cpu().numpy(), np.cumsum(values, dtype=np.int32))
    want_max = np.maximum.accumulate(np.concatenate([[-5000], values]))[:n]
    assert np.array_equal(summed.cpu().numpy(), want_max)
    assert np.array_equal(kept.cpu().numpy(), values[values < 0])
    assert np.array_equal(ordered.cpu().numpy(), np.sort(values))


@pytest.mark.parametrize("n", [1000, 300_001])
def test_cupy_explicit_stream(rng, n):
    cupy = pytest.importorskip("cupy")
    values = _values(rng, n)
    source = cupy.asarray(values)
    x = cupy.zeros(n, dtype=cupy.int32)
    side = cupy.cuda.Stream(non_blocking=True)  # no implicit order with the default stream
    spin = _cupy_spin(cupy)
    cupy.cuda.Device().synchronize()
    with side:
        spin()
        x[...] = source
    scanned = ss.inclusive_scan(x, stream=side)
    kept = ss.select_if(x, ">=", 0, stream=side)
    ordered = ss.sort(x, stream=side)
    side.synchronize()
    assert np.array_equal(scanned.get(), np.cumsum(values, dtype=np.int32))
    assert np.array_equal(kept.get(), values[values >= 0])
    assert np.array_equal(ordered.get(), np.sort(values))


def test_calls_on_two_streams_in_turn(rng):
    """Each stream keeps its own temp storage: calls alternating between two
    busy streams, each writing its own input, all come out right."""
    torch = _torch()
    streams = [torch.cuda.Stream(), torch.cuda.Stream()]
    wants, outs = [], []
    for round_ in range(6):
        stream = streams[round_ % 2]
        values = _values(rng, 50_000 + round_)
        source = torch.from_numpy(values).cuda()
        x = torch.empty_like(source)
        torch.cuda.synchronize()
        with torch.cuda.stream(stream):
            torch.cuda._sleep(SPIN_CYCLES // 4)
            x.copy_(source)
            outs.append(ss.inclusive_scan(x))
        wants.append(np.cumsum(values, dtype=np.int32))
    torch.cuda.synchronize()
    for got, want in zip(outs, wants):
        assert np.array_equal(got.cpu().numpy(), want)


def test_torch_graph_capture(rng):
    """A scan captured into a CUDA graph reads and writes the captured
    buffers on every replay."""
    torch = _torch()
    n = 100_003
    x = torch.from_numpy(_values(rng, n)).cuda()
    warm = torch.cuda.Stream()
    warm.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(warm):  # the warm-up torch asks for before a capture
        ss.inclusive_scan(x)
    torch.cuda.current_stream().wait_stream(warm)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        y = ss.inclusive_scan(x)
    for _ in range(3):
        values = _values(rng, n)
        x.copy_(torch.from_numpy(values))
        graph.replay()
        torch.cuda.synchronize()
        assert np.array_equal(y.cpu().numpy(), np.cumsum(values, dtype=np.int32))
