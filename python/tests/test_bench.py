"""The bench's row statistics, its summary of issue 54's targets and its
optional cuda.compute peer (python -m streamscan.bench needs a GPU; this does not)."""

import types

import numpy as np
import pytest

from streamscan import bench
from streamscan.bench import _timing


def test_timing_carries_median_spread_count_and_extremes():
    t = _timing([3.0, 1.0, 2.0, 5.0, 4.0])
    assert t.ms == 3.0
    assert (t.samples, t.min, t.max) == (5, 1.0, 5.0)
    assert t.noise == pytest.approx((5.0 - 1.0) / 3.0)  # (p90 - p10) / median


def test_timing_of_equal_samples_has_no_noise():
    t = _timing([2.0] * 30)
    assert (t.ms, t.noise, t.samples, t.min, t.max) == (2.0, 0.0, 30, 2.0, 2.0)


# Rows as run() makes them, with made-up speedups.
def _row(case, size, impl, **speedup_vs):
    r = {"case": case, "log2_n": size, "impl": impl, "ms": 1.0}
    if speedup_vs:
        r["speedup_vs"] = {k.replace("_", "."): v for k, v in speedup_vs.items()}
    return r


FAKE_ROWS = [
    _row("scan", 20, "torch.cumsum(dtype=int32)"),
    _row("scan", 20, "streamscan (torch tensor)", torch=0.9, cupy=3.0),
    _row("scan", 24, "streamscan (torch tensor)", torch=1.3, cupy=3.1, cuda_compute=1.02),
    _row("scan", 28, "streamscan (torch tensor)", torch=1.24),
    _row("scan_ax0", 24, "streamscan inclusive_scan(axis=0)", torch=0.8),
    _row("select50", 24, "streamscan select_if", torch=2.08),
    _row("select50", 24, "streamscan select(x, m)", torch=1.5),
    _row("sort", 24, "streamscan sort", torch=2.2, cupy=1.4),
    {"case": "overhead", "log2_n": 10, "host_us_python": 14.9, "host_us_extension": 6.8, "host_us_added": 8.1,
     "host_us_torch_cumsum": 13.2},
]


def test_targets_judge_the_2_24_rows():
    found = {t["what"]: t for t in bench.targets(FAKE_ROWS)}
    assert len(found) == len(bench.TARGETS) + 1
    scan = found["scan int32 2^24 >= 1.25x torch.cumsum"]
    assert (scan["measured"], scan["want"], scan["met"]) == (1.3, 1.25, True)
    # the other sizes and cuda.compute beside it, not judged
    assert scan["note"] == "2^20 0.9x, 2^28 1.24x, 1.02x cuda.compute"
    axis = next(t for w, t in found.items() if "axis 0" in w)
    assert (axis["measured"], axis["met"]) == (0.8, False)
    compaction = next(t for w, t in found.items() if w.startswith("compaction"))
    assert (compaction["measured"], compaction["want"], compaction["met"]) == (2.08, 3.0, False)
    assert "select(x, m) vs x[m] 1.5x" in compaction["note"]
    sort = next(t for w, t in found.items() if w.startswith("sort"))
    assert (sort["measured"], sort["met"]) == (1.4, True)  # at least: equal is met
    host = found[bench.HOST_TARGET[0]]
    assert (host["measured"], host["want"], host["met"]) == (1.7, 5.0, True)


def test_targets_over_the_host_slack_or_not_measured():
    rows = [{"case": "overhead", "log2_n": 10, "host_us_python": 20.0, "host_us_torch_cumsum": 13.0},
            _row("sort", 24, "streamscan sort", torch=2.0)]  # no cupy: sort not measured against it
    found = bench.targets(rows)
    assert found[-1]["measured"] == 7.0 and found[-1]["met"] is False
    assert all(t["measured"] is None and t["met"] is None for t in found[:-1])
    assert all(t["measured"] is None for t in bench.targets([]))


def test_print_targets_states_each_with_its_ratio_and_verdict(capsys):
    bench.print_targets(bench.targets(FAKE_ROWS[:3]))
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("targets (issue 54, item 6")
    assert len(out) == 1 + len(bench.TARGETS) + 1
    assert "1.3x  met" in out[1] and "(2^20 0.9x, 1.02x cuda.compute)" in out[1]
    assert all(line.rstrip().endswith("not measured") for line in out[2:])


def test_cuda_compute_that_does_not_import_is_left_out_with_one_line(capsys):
    loaded = bench._load_cuda_compute(names=("streamscan_no_such_module",))
    assert loaded[0] is None and "streamscan_no_such_module" in loaded[3]
    peer = bench.CudaCompute(None, loaded)
    assert peer.inclusive_scan(None, None) is None and peer.radix_sort(None, None) is None
    assert peer.select(None, 0, None) is None
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 1 and out[0].startswith("bench: cuda.compute left out: streamscan_no_such_module")
    assert peer.info()["left_out"] == loaded[3]


def test_cuda_compute_loader_never_raises():
    module, name, version, why = bench._load_cuda_compute()
    assert (module is None) == (why is not None)
    assert name in (None,) + bench.CUDA_COMPUTE_MODULES


class _Array(np.ndarray):
    """A NumPy array with what the peer reads of a torch tensor."""
    device = "cpu"  # which NumPy before 2.0 lacks

    def numel(self):
        return self.size


def _fake_torch():
    return types.SimpleNamespace(
        empty_like=lambda x: np.empty_like(x), uint8=np.uint8,
        empty=lambda n, dtype, device: np.empty(n, dtype),
        cuda=types.SimpleNamespace(current_stream=lambda: types.SimpleNamespace(cuda_stream=7)))


def _fake_cuda_compute(scan):
    """A module with cuda.compute's make_inclusive_scan, whose scanner does `scan`."""
    calls = []

    def make_inclusive_scan(*, d_in, d_out, op, init_value):
        assert op == "PLUS" and init_value is None

        def scanner(*, temp_storage, d_in, d_out, op, init_value, num_items, stream):
            assert stream.__cuda_stream__() == (0, 7)
            if temp_storage is None:
                return 100
            assert temp_storage.nbytes == 100
            calls.append(num_items)
            d_out[...] = scan(d_in)
        return scanner

    def make_radix_sort(**kwargs):
        raise RuntimeError("nvJitLink error:\n  no such library")

    module = types.SimpleNamespace(OpKind=types.SimpleNamespace(PLUS="PLUS"), make_inclusive_scan=make_inclusive_scan,
                                   make_radix_sort=make_radix_sort, SortOrder=types.SimpleNamespace(ASCENDING=0))
    return module, calls


def test_cuda_compute_builds_once_checks_and_returns_the_call(capsys):
    module, calls = _fake_cuda_compute(np.cumsum)
    peer = bench.CudaCompute(_fake_torch(), (module, "cuda.compute", "1.2.1", None))
    x = np.arange(10, dtype=np.int32).view(_Array)
    call = peer.inclusive_scan(x, np.cumsum(x))
    assert call is not None and calls == [10]  # run once to check it
    call()
    assert calls == [10, 10]
    assert capsys.readouterr().out == ""
    assert peer.info() == {"module": "cuda.compute", "version": "1.2.1", "left_out": None, "failed": None}


def test_cuda_compute_that_raises_or_differs_is_left_out_once_an_algorithm(capsys):
    module, _ = _fake_cuda_compute(lambda x: np.cumsum(x) + 1)
    peer = bench.CudaCompute(_fake_torch(), (module, "cuda.compute", "1.2.1", None))
    x = np.arange(10, dtype=np.int32).view(_Array)
    assert peer.inclusive_scan(x, np.cumsum(x)) is None
    assert peer.radix_sort(x, np.sort(x)) is None
    assert peer.radix_sort(x, np.sort(x)) is None  # said once
    out = capsys.readouterr().out.splitlines()
    assert out == ["bench: cuda.compute inclusive_scan left out: RuntimeError: outputs differ from torch's",
                   "bench: cuda.compute radix_sort left out: RuntimeError: nvJitLink error: no such library"]
    assert set(peer.info()["failed"]) == {"inclusive_scan", "radix_sort"}


def test_stream_is_passed_by_the_cuda_stream_protocol():
    assert bench._Stream(1234).__cuda_stream__() == (0, 1234)


def test_cases_include_the_axis_scan_and_unknown_ones_are_refused(capsys):
    assert "axis" in bench.CASES
    with pytest.raises(SystemExit) as e:
        bench.main(["--cases", "scan,nope"])
    assert e.value.code == 2 and "unknown nope" in capsys.readouterr().err


def test_main_without_a_gpu_says_so():
    if bench.ss.has_cuda:
        pytest.skip("a GPU build: the bench would run")
    assert bench.main(["--sizes", "10", "--cases", "axis,scan", "--no-cuda-compute"]) == 2
