"""Compaction, indices, split and partition against NumPy."""

import numpy as np
import pytest

import streamscan as ss
from conftest import supports

DTYPES = ["bool", "int8", "uint16", "int32", "float32", "int64", "float64", "float16"]
SIZES = [0, 1, 1023, 1025, 200_003]


@pytest.mark.parametrize("dtype", DTYPES)
def test_select_split_partition(xp, rng, dtype):
    if not supports(xp, dtype):
        pytest.skip(f"{xp} has no {dtype}")
    for n in SIZES:
        x = rng.integers(0, 100, n).astype(dtype)
        for keep in (0.0, 0.05, 0.5, 1.0):
            mask = rng.random(n) < keep
            got = ss.select(xp.asarray(x), xp.asarray(mask))
            assert xp.is_native(got)
            np.testing.assert_array_equal(xp.numpy(got), x[mask])
            out, num_false = ss.split(xp.asarray(x), xp.asarray(mask))
            assert num_false == int((~mask).sum())
            np.testing.assert_array_equal(xp.numpy(out), np.concatenate([x[~mask], x[mask]]))
            out, num_true = ss.partition(xp.asarray(x), xp.asarray(mask))
            assert num_true == int(mask.sum())
            np.testing.assert_array_equal(xp.numpy(out), np.concatenate([x[mask], x[~mask]]))
            np.testing.assert_array_equal(xp.numpy(ss.flatnonzero(xp.asarray(mask))), np.flatnonzero(mask))


@pytest.mark.parametrize("dtype", ["int8", "int32", "uint8", "int64", "float32", "float64"])
@pytest.mark.parametrize("cmp", ["<", "<=", ">", ">=", "==", "!="])
def test_select_if(xp, rng, dtype, cmp):
    if not supports(xp, dtype):
        pytest.skip(f"{xp} has no {dtype}")
    x = rng.integers(0, 100, 123_457).astype(dtype)
    ops = {"<": np.less, "<=": np.less_equal, ">": np.greater, ">=": np.greater_equal, "==": np.equal,
           "!=": np.not_equal}
    got = ss.select_if(xp.asarray(x), cmp, 50)
    np.testing.assert_array_equal(xp.numpy(got), x[ops[cmp](x, 50)])


def test_select_2d_mask_gives_flat_result(xp, rng):
    x = rng.integers(0, 10, (40, 50)).astype(np.int32)
    mask = x > 4
    np.testing.assert_array_equal(xp.numpy(ss.select(xp.asarray(x), xp.asarray(mask))), x[mask])


def test_select_errors(xp):
    x = xp.asarray(np.arange(10, dtype=np.int32))
    with pytest.raises(TypeError, match="mask"):
        ss.select(x, xp.asarray(np.ones(10, np.int32)))
    with pytest.raises(ValueError, match="mask"):
        ss.select(x, xp.asarray(np.ones(11, bool)))
    with pytest.raises(ValueError, match="cmp"):
        ss.select_if(x, "<>", 3)
    with pytest.raises(TypeError, match="value"):
        ss.select_if(x, "<", 2.5)
    with pytest.raises(OverflowError, match="value"):
        ss.select_if(x, "<", 2**40)
