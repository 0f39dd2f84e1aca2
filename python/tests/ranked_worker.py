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
    # Sorts: this rank's share of the whole sorted stably (np.array_split's share),
    # argsort's global indices, and pairs; shards uneven, one empty, keys with many ties.
    for case, (dtype, n, kind) in enumerate([("uint32", 200_003, "random"), ("int64", 65_537, "few"),
                                             ("float32", 100_000, "random"), ("float16", 30_001, "few"),
                                             ("int32", 5000, "equal"), ("uint8", 7, "random"),
                                             ("float64", 0, "random")]):
        rng = np.random.default_rng([seed, 100 + case])
        if kind == "equal":
            whole = np.full(n, 42, dtype)
        elif kind == "few":
            whole = rng.integers(-3, 3, n).astype(dtype)
        elif dtype.startswith("float"):
            whole = rng.standard_normal(n).astype(dtype)
            whole[rng.integers(0, max(n, 1), n // 100)] = np.nan
        else:
            whole = rng.integers(0, np.iinfo(dtype).max, n, dtype=dtype, endpoint=True)
        edges = shard_bounds(n, ranks, rng, empty_first=(case == 1))
        lo, hi = int(edges[rank]), int(edges[rank + 1])
        x = torch.from_numpy(whole[lo:hi].copy()).cuda()
        share = np.array_split(np.arange(n), ranks)[rank]
        s_lo, s_hi = (int(share[0]), int(share[-1]) + 1) if share.size else (0, 0)
        for descending in (False, True):
            order = np.argsort(whole, kind="stable")
            if descending:  # torch's stable descending: NaNs first, ties in input order
                wide = whole.astype(np.float64 if dtype.startswith("float") else np.int64)
                if dtype.startswith("float"):
                    wide[np.isnan(wide)] = np.inf
                order = np.argsort(-wide, kind="stable")
            want_keys = whole[order][s_lo:s_hi]
            got = ss.sort(x, descending=descending, comm=group).cpu().numpy()
            if not np.array_equal(got, want_keys, equal_nan=dtype.startswith("float")):
                sys.exit(f"rank {rank}: sort {dtype} n={n} {kind} descending={descending} differs")
            got = ss.argsort(x, descending=descending, comm=group).cpu().numpy()
            if not np.array_equal(got, order[s_lo:s_hi]):
                sys.exit(f"rank {rank}: argsort {dtype} n={n} {kind} descending={descending} differs")
            checked += 2
            if dtype == "float64":  # float64 keys with values are refused across ranks
                continue
            values = torch.arange(lo, hi, dtype=torch.int64, device="cuda")
            got_k, got_v = ss.sort_pairs(x, values, descending=descending, comm=group)
            if not (np.array_equal(got_v.cpu().numpy(), order[s_lo:s_hi]) and
                    np.array_equal(got_k.cpu().numpy(), want_keys, equal_nan=dtype.startswith("float"))):
                sys.exit(f"rank {rank}: sort_pairs {dtype} n={n} {kind} descending={descending} differs")
            checked += 1
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
    print(f"rank {rank} of {ranks}: {checked} scans and sorts match")


if __name__ == "__main__":
    main()
