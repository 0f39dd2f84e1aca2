"""streamscan.associative_scan with the linear recurrence's operator written as
source, against streamscan.linear_recurrence (the same operator compiled into
C++) and torch.add(a, b), which moves the same bytes (read a and b, write h): issue 55's target is associative_scan within
10% of linear_recurrence's forward. Shapes (B, C, T) float32, time last; CUDA
events, the median of repeated runs; the outputs are checked against each other
first. Needs torch with CUDA.

    python examples/associative_scan_vs_recurrence.py [--lengths 128,2048,4096,65536] [--repeat 20]
"""

import argparse
import statistics

import streamscan as ss

PAIR = "return {x.a * y.a, y.a * x.b + y.b};"


def median_ms(torch, fn, repeat, inner=5):
    fn()  # warm (and compile, the first time)
    torch.cuda.synchronize()
    times = []
    for _ in range(repeat):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(inner):
            fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) / inner)
    return statistics.median(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lengths", default="128,2048,4096,16384,65536")
    parser.add_argument("--shape", default="8,1536", help="the leading dimensions (B,C)")
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    import torch
    lead = tuple(int(v) for v in args.shape.split(","))
    print(f"{'shape':>20} {'a+b ms':>9} {'recurrence ms':>14} {'associative ms':>15} {'assoc/rec':>10} "
          f"{'% of a+b':>10}  target (<= 1.10)")
    for length in (int(v) for v in args.lengths.split(",")):
        shape = lead + (length,)
        a = torch.rand(shape, device="cuda")
        b = torch.rand(shape, device="cuda") * 2 - 1
        h = ss.linear_recurrence(a, b)
        g = ss.associative_scan(PAIR, (a, b), names=("a", "b"), keep="b")
        worst = ((g - h).abs() / (h.abs() + 1)).max().item()
        assert worst < 1e-4, f"{shape}: associative_scan and linear_recurrence differ by {worst} (relative)"
        out = torch.empty_like(a)
        # The same bytes as the scans (read a and b, write h) through torch's elementwise add.
        copy = median_ms(torch, lambda: torch.add(a, b, out=out), args.repeat)
        rec = median_ms(torch, lambda: ss.linear_recurrence(a, b, out=h), args.repeat)
        asc = median_ms(torch, lambda: ss.associative_scan(PAIR, (a, b), names=("a", "b"), keep="b"), args.repeat)
        ratio = asc / rec
        print(f"{str(shape):>20} {copy:9.3f} {rec:14.3f} {asc:15.3f} {ratio:10.3f} {100 * copy / asc:9.0f}%  "
              f"{'met' if ratio <= 1.10 else 'NOT met'}")


if __name__ == "__main__":
    main()
