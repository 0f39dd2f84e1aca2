"""python -m streamscan.bench: streamscan's Python calls against what a Python user calls today.

On the GPU (needs torch; CuPy where installed), in one process, outputs checked:
  copy          y.copy_(x), the memcpy bound                     (int32)
  scan          torch.cumsum(dtype=int32), cupy.cumsum           vs inclusive_scan(dtype="int32");
                int8 summed in int32: torch.cumsum(dtype=int32)  vs inclusive_scan(dtype="int32")
  select        x[x < t] (torch), keeping 5 / 50 / 95%           vs select_if and select(x, mask)
  sort          torch.sort, cupy.sort                            vs sort
  spmv          torch.sparse_csr_tensor @ v (rows x 16, float)  vs spmv
  overhead      host time of one call at 2^10, and the GPU time at 2^24, of the
                Python call against the bare extension call (the C++ call it makes)
Each time is the median of --repeat CUDA-event timings of 10 calls back to back
(after a warm-up; the window opens once the first call is queued), divided by 10; each row also carries the sample count, the
fastest and slowest sample (min_ms, max_ms) and `noise`, (p90 - p10) / median,
and names what its speedups compare with (speedup_vs). Inputs stay
the same between calls (warm where they fit in L2, as a Python loop would see them).
"""

from __future__ import annotations

import argparse
import collections
import json
import platform
import statistics
import sys
import time

import numpy as np

import streamscan as ss
from . import _core


# One timed call: the median of its samples (ms a call), their relative
# spread (p90 - p10) / median, how many, the fastest and the slowest.
Timing = collections.namedtuple("Timing", "ms noise samples min max")


def _percentile(sorted_values, q):
    return sorted_values[min(len(sorted_values) - 1, int(q * len(sorted_values)))]


def _timing(samples):
    samples = sorted(samples)
    median = statistics.median(samples)
    noise = (_percentile(samples, 0.9) - _percentile(samples, 0.1)) / median if median > 0 else 0.0
    return Timing(median, noise, len(samples), samples[0], samples[-1])


class Timer:
    def __init__(self, torch, repeat):
        self.torch, self.repeat = torch, repeat

    def gpu_ms(self, fn, inner=10):
        """GPU time a call: each sample times `inner` calls back to back (as a
        program calls them), so that the host's time a call overlaps the GPU's
        where it is shorter, as it does in a real program. The GPU first spins
        ~0.1 ms before the start event, so that the window opens with the
        first call already queued: otherwise it would also hold the host time
        that call takes to reach its launch, once a sample, which is not a
        cost a running program pays each call."""
        torch = self.torch
        spin = getattr(torch.cuda, "_sleep", None)
        fn()
        torch.cuda.synchronize()
        samples = []
        for _ in range(self.repeat):
            start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            if spin is not None:
                spin(200_000)  # clock cycles
            start.record()
            for _ in range(inner):
                fn()
            stop.record()
            stop.synchronize()
            samples.append(start.elapsed_time(stop) / inner)
        return _timing(samples)

    def host_us(self, fn, calls=2000):
        fn()
        self.torch.cuda.synchronize()
        best = float("inf")
        for _ in range(5):
            t0 = time.perf_counter()
            for _ in range(calls):
                fn()
            t1 = time.perf_counter()
            self.torch.cuda.synchronize()
            best = min(best, (t1 - t0) / calls * 1e6)
        return best


def _check(name, got, want):
    if not bool((got == want).all()):
        raise SystemExit(f"bench: {name}: outputs differ")


def run(sizes, repeat, only):
    import torch
    cupy = _core.import_library("cupy")
    timer = Timer(torch, repeat)
    rows = []

    def row(case, size, impl, timing, nbytes, peer=None, copy_ms=None):
        ms, noise = timing.ms, timing.noise
        entry = {"case": case, "log2_n": size, "impl": impl, "ms": round(ms, 5), "noise": round(noise, 3),
                 "samples": timing.samples, "min_ms": round(timing.min, 5), "max_ms": round(timing.max, 5)}
        if nbytes:
            entry["gbps"] = round(nbytes / (ms * 1e-3) / 1e9, 1)
        if copy_ms:
            entry["pct_of_copy"] = round(100 * copy_ms * nbytes / (ms * copy_bytes_of[size]), 1)
        if peer:
            entry["speedup_vs"] = {k: round(v / ms, 3) for k, v in peer.items()}
        rows.append(entry)
        extra = " ".join(f"{v}x {k}" for k, v in entry.get("speedup_vs", {}).items())
        print(f"{case:<10} 2^{size:<3} {impl:<28} {ms:9.4f} ms  noise {noise:5.1%}  "
              f"{entry.get('gbps', ''):>7} GB/s  {entry.get('pct_of_copy', ''):>5}% copy  {extra}", flush=True)

    copy_bytes_of = {}
    gen = torch.Generator(device="cuda").manual_seed(1)
    for size in sizes:
        n = 1 << size
        x = torch.randint(-1000, 1000, (n,), device="cuda", dtype=torch.int32, generator=gen)
        y = torch.empty_like(x)
        nbytes = 2 * 4 * n
        copy_time = timer.gpu_ms(lambda: y.copy_(x))
        copy_bytes_of[size] = nbytes
        row("copy", size, "torch copy_", copy_time, nbytes, copy_ms=copy_time.ms)

        if "scan" in only:
            _check("scan", ss.inclusive_scan(x, dtype="int32"), torch.cumsum(x, 0, dtype=torch.int32))
            t_time = timer.gpu_ms(lambda: torch.cumsum(x, 0, dtype=torch.int32))
            row("scan", size, "torch.cumsum(dtype=int32)", t_time, nbytes, copy_ms=copy_time.ms)
            peers = {"torch": t_time.ms}
            if cupy is not None:
                cx = cupy.from_dlpack(x)
                c_time = timer.gpu_ms(lambda: cupy.cumsum(cx))
                row("scan", size, "cupy.cumsum", c_time, nbytes, copy_ms=copy_time.ms)
                peers["cupy"] = c_time.ms
                s_time = timer.gpu_ms(lambda: ss.inclusive_scan(cx, dtype="int32"))
                row("scan", size, "streamscan (cupy array)", s_time, nbytes, {"cupy": c_time.ms}, copy_time.ms)
            s_time = timer.gpu_ms(lambda: ss.inclusive_scan(x, dtype="int32"))
            row("scan", size, "streamscan (torch tensor)", s_time, nbytes, peers, copy_time.ms)
            # int8 values summed in int32 (counts of flags, small deltas): one
            # byte read and four written an element.
            x8 = x.to(torch.int8)
            _check("scan int8", ss.inclusive_scan(x8, dtype="int32"), torch.cumsum(x8, 0, dtype=torch.int32))
            mixed_bytes = 5 * n
            t8_time = timer.gpu_ms(lambda: torch.cumsum(x8, 0, dtype=torch.int32))
            row("scan", size, "torch.cumsum(int8, dtype=int32)", t8_time, mixed_bytes)
            s8_time = timer.gpu_ms(lambda: ss.inclusive_scan(x8, dtype="int32"))
            row("scan", size, "streamscan (int8 -> int32)", s8_time, mixed_bytes, {"torch": t8_time.ms})

        if "select" in only:
            for keep in (5, 50, 95):
                t = int(-1000 + 20 * keep)
                _check("select", ss.select_if(x, "<", t), x[x < t])
                kept = int((x < t).sum())
                moved = 4 * n + 4 * kept
                t_time = timer.gpu_ms(lambda: x[x < t])
                row(f"select{keep}", size, "torch x[x < t]", t_time, moved, copy_ms=copy_time.ms)
                s_time = timer.gpu_ms(lambda: ss.select_if(x, "<", t))
                row(f"select{keep}", size, "streamscan select_if", s_time, moved, {"torch": t_time.ms}, copy_time.ms)
                s_time = timer.gpu_ms(lambda: ss.select(x, x < t))
                row(f"select{keep}", size, "streamscan select(x, x < t)", s_time, moved, {"torch": t_time.ms},
                    copy_time.ms)

        if "sort" in only:
            keys = torch.randint(-2**31, 2**31 - 1, (n,), device="cuda", dtype=torch.int32, generator=gen)
            _check("sort", ss.sort(keys), torch.sort(keys).values)
            moved = 2 * 4 * n
            t_time = timer.gpu_ms(lambda: torch.sort(keys))
            row("sort", size, "torch.sort", t_time, moved)
            peers = {"torch": t_time.ms}
            if cupy is not None:
                ck = cupy.from_dlpack(keys)
                c_time = timer.gpu_ms(lambda: cupy.sort(ck))
                row("sort", size, "cupy.sort", c_time, moved)
                peers["cupy"] = c_time.ms
            s_time = timer.gpu_ms(lambda: ss.sort(keys))
            row("sort", size, "streamscan sort", s_time, moved, peers)
            del keys
        del x, y
        torch.cuda.empty_cache()

    if "spmv" in only:
        n_rows = 1 << 22
        cols = torch.randint(0, n_rows, (16 * n_rows,), device="cuda", dtype=torch.int32, generator=gen)
        crow = torch.arange(0, 16 * n_rows + 1, 16, device="cuda", dtype=torch.int32)
        vals = torch.rand(16 * n_rows, device="cuda", generator=gen)
        A = torch.sparse_csr_tensor(crow, cols, vals, size=(n_rows, n_rows))
        v = torch.rand(n_rows, device="cuda", generator=gen)
        want = A @ v
        got = ss.spmv(A, v)
        if not torch.allclose(got, want, rtol=1e-4, atol=1e-4):
            raise SystemExit("bench: spmv: outputs differ")
        moved = 16 * n_rows * 8 + 4 * (n_rows + 1) + 2 * 4 * n_rows
        t_time = timer.gpu_ms(lambda: A @ v)
        row("spmv", 22, "torch sparse_csr @ v", t_time, moved)
        s_time = timer.gpu_ms(lambda: ss.spmv(A, v))
        row("spmv", 22, "streamscan spmv", s_time, moved, {"torch": t_time.ms})

    if "overhead" in only:
        rows.extend(_overhead(torch, timer))
    return rows


def _overhead(torch, timer):
    """The Python layer's cost: the full call against the bare extension call
    on preallocated output and temp storage (what the C++ two-phase call costs)."""
    from . import _cuda
    out = []
    for size in (10, 24):
        n = 1 << size
        x = torch.ones(n, device="cuda", dtype=torch.int32)
        y = torch.empty_like(x)
        stream = torch.cuda.current_stream().cuda_stream
        args = (x.data_ptr(), y.data_ptr(), n, _core.CODE["int32"], _core.CODE["int32"], 0, False, None, 0, 0, 0,
                False, 0, 0)
        nbytes = _cuda.scan(*args, 0, 0, 0, stream)
        temp = torch.empty(max(nbytes, 1), device="cuda", dtype=torch.uint8)
        bare = lambda: _cuda.scan(*args, temp.data_ptr(), nbytes, 0, stream)  # noqa: E731
        full = lambda: ss.inclusive_scan(x, dtype="int32")  # noqa: E731
        if size == 10:
            b_us, f_us = timer.host_us(bare), timer.host_us(full)
            t_us = timer.host_us(lambda: torch.cumsum(x, 0, dtype=torch.int32))
            entry = {"case": "overhead", "log2_n": size, "host_us_python": round(f_us, 2),
                     "host_us_extension": round(b_us, 2), "host_us_added": round(f_us - b_us, 2),
                     "host_us_torch_cumsum": round(t_us, 2)}
            print(f"overhead   2^10 host time a call: Python {f_us:.2f} us, bare extension {b_us:.2f} us "
                  f"(+{f_us - b_us:.2f} us); torch.cumsum {t_us:.2f} us", flush=True)
        else:
            b_ms = timer.gpu_ms(bare).ms
            f_ms = timer.gpu_ms(full).ms
            entry = {"case": "overhead", "log2_n": size, "ms_python": round(f_ms, 5), "ms_extension": round(b_ms, 5),
                     "added_pct": round(100 * (f_ms / b_ms - 1), 2)}
            print(f"overhead   2^24 GPU time: Python {f_ms:.4f} ms, bare extension {b_ms:.4f} ms "
                  f"({100 * (f_ms / b_ms - 1):+.1f}%)", flush=True)
        out.append(entry)
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m streamscan.bench", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="20,24,28", help="log2 sizes, comma-separated (default 20,24,28)")
    parser.add_argument("--repeat", type=int, default=30, help="timed calls a case (default 30)")
    parser.add_argument("--cases", default="scan,select,sort,spmv,overhead",
                        help="any of scan,select,sort,spmv,overhead")
    parser.add_argument("--json", help="write the rows as JSON to this file")
    args = parser.parse_args(argv)
    try:
        sizes = [int(s) for s in args.sizes.split(",") if s]
    except ValueError:
        parser.error(f"--sizes: expected comma-separated integers, got {args.sizes!r}")
    if any(s < 0 or s > 31 for s in sizes):
        parser.error("--sizes: log2 sizes from 0 to 31")
    only = set(args.cases.split(","))
    unknown = only - {"scan", "select", "sort", "spmv", "overhead"}
    if unknown:
        parser.error(f"--cases: unknown {', '.join(sorted(unknown))}")
    torch = _core.import_library("torch")
    if torch is None or not torch.cuda.is_available() or not ss.has_cuda:
        print("bench: needs a GPU, torch with CUDA and streamscan's CUDA module", file=sys.stderr)
        return 2
    if args.json:
        try:
            open(args.json, "w").close()
        except OSError as e:
            parser.error(f"--json: {e}")
    rows = run(sizes, args.repeat, only)
    if args.json:
        cupy = _core.import_library("cupy")
        doc = {"schema": 2, "tool": "python -m streamscan.bench", "device": torch.cuda.get_device_name(),
               "date": time.strftime("%Y-%m-%dT%H:%M:%S"),
               "command": " ".join(["python -m streamscan.bench"] + (argv if argv is not None else sys.argv[1:])),
               "torch": torch.__version__, "cupy": getattr(cupy, "__version__", None), "numpy": np.__version__,
               "python": platform.python_version(), "repeat": args.repeat, "rows": rows}
        with open(args.json, "w") as f:
            json.dump(doc, f, indent=1, allow_nan=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
