"""The bench's row statistics, its summary of issue 54's targets and its
optional cuda.compute peer (python -m streamscan.bench needs a GPU; this does not)."""

import json
import math
import os
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


# The linear-recurrence rows (issue 55): the same code path on CPU tensors at
# tiny sizes, with a timer that runs each call once and made-up peers.
class _OnceTimer:
    def gpu_ms(self, fn, inner=10):
        fn()
        return _timing([1.0])


def _recurrence_rows(torch):
    from streamscan import _bench_recurrence as lr
    ss = bench.ss

    def boom(a, b):
        raise RuntimeError("an illegal memory access was encountered")

    peers = [lr.Peer(lr.WARP, ss.linear_recurrence, ss.linear_recurrence),
             lr.Peer(lr.TRITON, lambda a, b: ss.linear_recurrence(a, b) * 1.01, boom),  # inaccurate, then crashes
             lr.Peer(lr.TORCH_ASSOC, why="ImportError: no associative_scan")]
    return lr, lr.rows(torch, _OnceTimer(), peers, lengths=(8, 33), dtypes=("float32", "bfloat16"), lead=(2, 3),
                       device="cpu", isolate=((lr.WARP, "float32", 33),), log=lambda line: None)


def test_recurrence_rows_on_cpu_check_time_and_note_failures():
    torch = pytest.importorskip("torch")
    rows_env = os.environ.get("STREAMSCAN_ASSOCIATIVE_ROWS")
    lr, rows = _recurrence_rows(torch)
    by = {(r["dtype"], r["T"], r["pass"], r["impl"]): r for r in rows}
    assert {r["case"] for r in rows} == {lr.CASE}
    for dtype in ("float32", "bfloat16"):
        for T in (8, 33):
            for pass_, impls in ((lr.FORWARD, (lr.OURS_FWD,)), (lr.BOTH, (lr.OURS_BOTH, lr.OURS_CALLS))):
                copy = by[(dtype, T, pass_, lr.COPY)]
                size = 4 if dtype == "float32" else 2
                assert copy["bytes"] == (3 if pass_ == lr.FORWARD else 8) * 6 * T * size
                for impl in impls:
                    r = by[(dtype, T, pass_, impl)]
                    assert r["check"].startswith("ok") and r["worst_of_bound"] <= 1, r
                    assert r["pct_of_copy"] == 100.0 and r["shape"] == [2, 3, T]
                    assert r["faster_peer"] in lr.TARGET_PEERS and r["vs_faster_peer"] == 1.0
            # the inaccurate peer is timed and marked; its crash and the one left out are notes
            assert by[(dtype, T, lr.FORWARD, lr.TRITON)]["check"].startswith("outside float32-state accuracy")
            assert "illegal memory access" in by[(dtype, T, lr.BOTH, lr.TRITON)]["note"]
            assert by[(dtype, T, lr.BOTH, lr.TRITON)]["ms"] is None
            assert "no associative_scan" in by[(dtype, T, lr.FORWARD, lr.TORCH_ASSOC)]["note"]
    # the isolated peer ran last, and ours carry its time
    assert rows[-1]["impl"] == lr.WARP and (rows[-1]["dtype"], rows[-1]["T"]) == ("float32", 33)
    assert lr.WARP in by[("float32", 33, lr.FORWARD, lr.OURS_FWD)]["speedup_vs"]
    assert lr.WARP in by[("float32", 33, lr.BOTH, lr.OURS_CALLS)]["peer_ms"]
    if hasattr(bench.ss, "associative_scan"):  # timed against linear_recurrence (bfloat16 fields: float32 state)
        for dtype in ("float32", "bfloat16"):
            for impl in (lr.OURS_ASSOC, lr.OURS_ASSOC_LOOKBACK):  # the default, and the look-back kernel
                assoc = by[(dtype, 8, lr.FORWARD, impl)]
                assert assoc.get("vs_linear_recurrence") == 1.0 and assoc["check"].startswith("ok"), assoc
        assert os.environ.get(lr.ASSOC_ROWS_ENV) == rows_env, "the bench left STREAMSCAN_ASSOCIATIVE_ROWS changed"
    json.dumps(rows, allow_nan=False)


def test_recurrence_targets_judge_the_worst_t_and_print_apart(capsys):
    torch = pytest.importorskip("torch")
    lr, rows = _recurrence_rows(torch)
    found = bench.targets(rows)
    assert found and all(t["issue"] == 55 for t in found)  # issue 54's are left out: none of its rows ran
    by = {t["what"]: t for t in found}
    copy = by["float32 forward + backward >= 85% of copy (the calls)"]
    assert (copy["measured"], copy["met"], copy["unit"]) == (100.0, True, "%")
    assert by["float32 forward >= 90% of copy, T >= 2048"]["met"] is None  # no such T measured
    peer = by["float32 forward >= 1.2x the faster accelerated_scan, T <= 4096"]
    assert (peer["measured"], peer["met"]) == (1.0, False)
    accuracy = by["bfloat16 within float32-state accuracy at every T (fraction of the bound)"]
    assert accuracy["at_most"] and accuracy["met"] is True and accuracy["measured"] <= 1
    bench.print_targets(found)
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("targets (issue 55") and len(out) == 1 + len(found)
    assert "100.0%  met" in next(line for line in out if "85% of copy" in line)
    # with issue 54's rows too, both lists
    both = bench.targets(FAKE_ROWS + rows)
    assert len(both) == len(bench.TARGETS) + 1 + len(found)


def test_recurrence_targets_from_made_up_rows():
    from streamscan import _bench_recurrence as lr

    def r(T, pass_, impl, **kw):
        return dict({"case": lr.CASE, "dtype": "float32", "T": T, "pass": pass_, "impl": impl, "ms": 1.0}, **kw)
    rows = [r(128, lr.FORWARD, lr.OURS_FWD, pct_of_copy=71.0, vs_faster_peer=1.5, faster_peer=lr.WARP),
            r(2048, lr.FORWARD, lr.OURS_FWD, pct_of_copy=92.0, vs_faster_peer=1.1, faster_peer=lr.TRITON),
            r(65536, lr.FORWARD, lr.OURS_FWD, pct_of_copy=89.0, vs_faster_peer=0.9, faster_peer=lr.TRITON),
            r(2048, lr.FORWARD, lr.OURS_ASSOC, vs_linear_recurrence=1.05, check="ok (worst 0.01 of the bound)"),
            r(65536, lr.FORWARD, lr.OURS_ASSOC, ms=None, note="CompileError: nvrtc")]
    by = {t["what"]: t for t in bench.targets(rows)}
    assert by["float32 forward >= 90% of copy, T >= 2048"]["measured"] == 89.0  # the worst T
    assert by["float32 forward >= 90% of copy, T >= 2048"]["met"] is False
    assert by["float32 forward >= 70% of copy at T = 128"]["met"] is True
    assert by["float32 forward >= 1.2x the faster accelerated_scan, T <= 4096"]["measured"] == 1.1  # T > 4096 aside
    assert by["float32 faster than both accelerated_scan kernels at every T"]["measured"] == 0.9
    assoc = by["float32 associative_scan (pair operator) <= 1.10x linear_recurrence's forward time"]
    assert (assoc["measured"], assoc["met"]) == (1.05, True) and "CompileError: nvrtc" in assoc["note"]


def test_recurrence_options_are_checked_before_the_gpu(capsys):
    for args in (["--lr-dtypes", "int32"], ["--lr-peers", "warp,cub"], ["--lr-lengths", "0"]):
        with pytest.raises(SystemExit) as e:
            bench.main(["--only", "linear_recurrence"] + args)
        assert e.value.code == 2
    assert "--lr-dtypes" in capsys.readouterr().err
    assert "linear_recurrence" in bench.CASES and "linear_recurrence" not in bench.DEFAULT_CASES


def test_recurrence_accuracy_bound_and_oracle():
    torch = pytest.importorskip("torch")
    from streamscan import _bench_recurrence as lr
    assert lr.accuracy_eps("bfloat16", 1) > lr.accuracy_eps("float32", 1 << 16) > lr.accuracy_eps("float32", 1)
    a = torch.rand(2, 3, 50, dtype=torch.float64)
    b = torch.rand(2, 3, 50, dtype=torch.float64) * 2 - 1
    assert lr.oracle_agrees(torch, a, b, b)
    h = bench.ss.linear_recurrence(a, b)
    assert lr.worst_of_bound(torch, a, b, b, h) < 1
    h[1, 2, 40] += 1e-3
    assert lr.worst_of_bound(torch, a, b, b, h) > 1
    h[0, 0, 3] = float("nan")  # a NaN is the worst, not dropped
    assert math.isnan(lr.worst_of_bound(torch, a, b, b, h))
    ga, gb = torch.zeros_like(a), torch.zeros_like(a)
    assert lr.worst_of_bound(torch, a, b, b, bench.ss.linear_recurrence(a, b), (ga, gb)) > 1  # wrong gradients
