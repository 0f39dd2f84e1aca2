"""Scans across the ranks of an NCCL communicator (comm=): the arguments' checks everywhere,
on a GPU a one-rank torch.distributed group, where the scan of the whole array is the scan
of the one shard, and on a machine of several GPUs one process a GPU (ranked_worker.py).
The C++ suite (test_nccl) tests the same calls with simulated ranks and NCCL."""

import os
import socket

import numpy as np
import pytest

import streamscan as ss
from streamscan import _scan

from conftest import GPUS


def test_host_arrays_are_refused():
    with pytest.raises(TypeError, match="comm: a scan across ranks runs on GPU arrays"):
        ss.inclusive_scan(np.arange(5), comm=1234)


def test_communicator_kinds():
    assert _scan.comm_address(0x1234, 0) == 0x1234

    class Nccl4pyLike:
        ptr = 0x5678

    assert _scan.comm_address(Nccl4pyLike(), 0) == 0x5678
    with pytest.raises(ValueError, match="comm: 0 is not an ncclComm_t address"):
        _scan.comm_address(0, 0)
    with pytest.raises(TypeError, match="comm: bool is not an NCCL communicator"):
        _scan.comm_address(True, 0)
    with pytest.raises(TypeError, match="comm: str is not an NCCL communicator"):
        _scan.comm_address("world", 0)


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def one_rank_group():
    if not GPUS:
        pytest.skip("no GPU")
    torch = pytest.importorskip("torch")
    dist = pytest.importorskip("torch.distributed")
    if not dist.is_nccl_available():
        pytest.skip("torch has no NCCL")
    if not ss._cuda_module.ranked_scan_compiled():
        pytest.skip("built without NCCL")
    if dist.is_initialized():  # a group made by the caller: use it as it is
        yield dist.group.WORLD
        return
    dist.init_process_group("nccl", init_method=f"tcp://127.0.0.1:{_free_port()}", rank=0, world_size=1)
    yield dist.group.WORLD
    dist.destroy_process_group()


@pytest.mark.parametrize("dtype", ["int32", "int64", "float32", "float64"])
@pytest.mark.parametrize("n", [0, 1, 1000, 300_001])
def test_one_rank_group_scans_its_shard(one_rank_group, rng, dtype, n):
    import torch
    x = torch.from_numpy(rng.integers(-50, 50, n).astype(dtype)).cuda()
    got = ss.inclusive_scan(x, comm=one_rank_group)
    assert isinstance(got, torch.Tensor) and got.is_cuda
    np.testing.assert_array_equal(got.cpu().numpy(), np.cumsum(x.cpu().numpy(), dtype=dtype))
    got = ss.exclusive_scan(x, "max", initial=-7, comm=one_rank_group)
    want = np.maximum.accumulate(np.concatenate([[-7], x.cpu().numpy()]).astype(dtype))[:n]
    np.testing.assert_array_equal(got.cpu().numpy(), want)


def test_one_rank_group_errors(one_rank_group):
    import torch
    x = torch.ones(10, device="cuda", dtype=torch.int32)
    with pytest.raises(ValueError, match="initial: an inclusive scan across ranks"):
        ss.inclusive_scan(x, initial=3, comm=one_rank_group)
    with pytest.raises(ValueError, match="x: a scan across ranks takes this rank's 1-d shard"):
        ss.inclusive_scan(x.reshape(2, 5), comm=one_rank_group)


@pytest.mark.parametrize("dtype", ["uint32", "int64", "float32", "float16", "bool"])
@pytest.mark.parametrize("n", [0, 1, 4097, 300_001])
def test_one_rank_group_sorts_its_shard(one_rank_group, rng, dtype, n):
    import torch
    x = rng.integers(-3, 3, n).astype(dtype) if dtype != "float32" else rng.standard_normal(n).astype(dtype)
    t = torch.from_numpy(x).cuda()
    np.testing.assert_array_equal(ss.sort(t, comm=one_rank_group).cpu().numpy(), np.sort(x, kind="stable"))
    order = np.argsort(x, kind="stable")
    np.testing.assert_array_equal(ss.argsort(t, comm=one_rank_group).cpu().numpy(), order)
    values = torch.arange(n, dtype=torch.float32, device="cuda")
    keys, got = ss.sort_pairs(t, values, comm=one_rank_group)
    np.testing.assert_array_equal(got.cpu().numpy(), order.astype(np.float32))


def test_one_rank_group_sort_errors(one_rank_group):
    import torch
    x = torch.ones(10, device="cuda", dtype=torch.float64)
    with pytest.raises(ValueError, match="keys: a sort across ranks takes this rank's 1-d shard"):
        ss.sort(x.reshape(2, 5), comm=one_rank_group)
    with pytest.raises(ValueError, match="out: a sort across ranks returns a new array"):
        ss.sort(x, out=x, comm=one_rank_group)
    with pytest.raises(TypeError, match="float64 keys with values cannot be sorted across ranks"):
        ss.sort_pairs(x, x, comm=one_rank_group)
    with pytest.raises(TypeError, match="values: a sort across ranks moves values of 4 or 8 bytes"):
        ss.sort_pairs(x, x.to(torch.int16), comm=one_rank_group)


@pytest.mark.parametrize("dtype", ["uint32", "int64", "float32", "float16", "bool"])
@pytest.mark.parametrize("n", [0, 1, 4097])
def test_rank_share_logic_on_one_rank(rng, dtype, n):
    """The Python side of a sort across ranks (_sort._Ranks: the key transforms, the
    share's outputs, argsort's global indices, pairs) with the communicator left out:
    address 0 runs the one-GPU sort on the same arrays, so this runs anywhere."""
    from streamscan import _core, _sort
    x = rng.integers(-3, 3, n).astype(dtype) if dtype != "float32" else rng.standard_normal(n).astype(dtype)
    ranks = object.__new__(_sort._Ranks)
    ranks.address, ranks.rank, ranks.sizes, ranks.offset, ranks.share = 0, 0, [n], 0, n
    k = _sort._keys(x)
    begin, end = _sort._bits(k, 0, None)
    got = ranks.sorted(k, None, begin, end, False, None, None)[0]
    np.testing.assert_array_equal(np.asarray(got.obj), np.sort(x, kind="stable"))
    order = np.argsort(x, kind="stable")
    np.testing.assert_array_equal(np.asarray(ranks.order(k, begin, end, False, None, None).obj), order)
    values = _core.as_array(np.arange(n, dtype=np.float32), "values")
    np.testing.assert_array_equal(np.asarray(ranks.sorted(k, values, begin, end, False, None, None)[1].obj),
                                  order.astype(np.float32))


def test_host_arrays_are_refused_by_sorts():
    with pytest.raises(TypeError, match="comm: a sort across ranks runs on GPU arrays"):
        ss.sort(np.arange(5), comm=1234)


def test_ranks_on_every_gpu(tmp_path):
    """One process a GPU (torch.distributed.run), every rank's shard against NumPy's scan of
    the whole array (ranked_worker.py). Needs at least two GPUs."""
    if GPUS < 2:
        pytest.skip("needs two GPUs")
    pytest.importorskip("torch")
    if not ss._cuda_module.ranked_scan_compiled():
        pytest.skip("built without NCCL")
    import subprocess
    import sys
    from conftest import SEED
    env = dict(os.environ, STREAMSCAN_TEST_SEED=str(SEED), NCCL_NVLS_ENABLE="0")
    worker = os.path.join(os.path.dirname(__file__), "ranked_worker.py")
    run = subprocess.run([sys.executable, "-m", "torch.distributed.run", "--standalone",
                          f"--nproc_per_node={GPUS}", worker], env=env, capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-4000:]
    for rank in range(GPUS):
        assert f"rank {rank} of {GPUS}:" in run.stdout
