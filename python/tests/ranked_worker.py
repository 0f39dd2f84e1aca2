"""One rank of test_ranked.py's multi-GPU test: run by torch.distributed.run, one process a
GPU. Every rank builds the same global arrays from the seed, scans its shard across the
NCCL group with comm=, and checks it against NumPy's scan of the whole array at the
shard's place. Shards are uneven and one is empty, as a caller's may be. Exits non-zero on
the first mismatch (torch.distributed.run then fails the whole run)."""

import os
import sys

import numpy as np
import torch
import torch.distributed as dist

import streamscan as ss


def shard_bounds(n, ranks, rng, empty_first=False):
    """Random, uneven cuts of [0, n); with empty_first rank 0's shard is empty."""
    cuts = np.sort(rng.integers(0, n + 1, ranks - 1))
    if empty_first and ranks > 1:
        cuts[0] = 0
    return np.concatenate([[0], cuts, [n]])


def main():
    seed = int(os.environ["STREAMSCAN_TEST_SEED"])
    rank, ranks = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
    dist.init_process_group("nccl")
    group = dist.group.WORLD
    checked = 0
    for case, (dtype, n) in enumerate([("int32", 1000), ("int64", 300_001), ("float32", 65_537),
                                       ("float64", 1 << 20), ("int32", 0), ("int32", 1)]):
        rng = np.random.default_rng([seed, case])
        whole = rng.integers(-50, 50, n).astype(dtype)  # small integers: float sums are exact
        edges = shard_bounds(n, ranks, rng, empty_first=(case == 2))
        lo, hi = int(edges[rank]), int(edges[rank + 1])
        x = torch.from_numpy(whole[lo:hi].copy()).cuda()
        got = ss.inclusive_scan(x, comm=group).cpu().numpy()
        want = np.cumsum(whole, dtype=dtype)[lo:hi]
        if not np.array_equal(got, want):
            sys.exit(f"rank {rank}: inclusive add {dtype} n={n} shard [{lo}, {hi}) differs")
        got = ss.exclusive_scan(x, "max", initial=-7, comm=group).cpu().numpy()
        want = np.maximum.accumulate(np.concatenate([[-7], whole]).astype(dtype))[lo:hi]
        if not np.array_equal(got, want):
            sys.exit(f"rank {rank}: exclusive max {dtype} n={n} shard [{lo}, {hi}) differs")
        checked += 2
    # On a stream of the caller's: the result is ready once that stream is.
    stream = torch.cuda.Stream()
    whole = np.arange(1, 4097, dtype=np.int64)
    edges = shard_bounds(whole.size, ranks, np.random.default_rng([seed, 99]))
    lo, hi = int(edges[rank]), int(edges[rank + 1])
    x = torch.from_numpy(whole[lo:hi].copy()).cuda()
    with torch.cuda.stream(stream):
        got = ss.inclusive_scan(x, comm=group)
    stream.synchronize()
    if not np.array_equal(got.cpu().numpy(), np.cumsum(whole)[lo:hi]):
        sys.exit(f"rank {rank}: scan on a side stream differs")
    checked += 1
    dist.barrier()
    dist.destroy_process_group()
    print(f"rank {rank} of {ranks}: {checked} scans match")


if __name__ == "__main__":
    main()
