"""Segmented scans (head flags and offsets, forward and backward) against a loop over segments."""

import numpy as np
import pytest

import streamscan as ss
from test_scan import UFUNC, identity

SIZES = [1, 1023, 1025, 70_001]


def offsets_of(rng, n, empty_ones=True):
    cuts = np.sort(rng.integers(0, n + 1, max(1, n // 50)))
    if not empty_ones:
        cuts = np.unique(cuts)
    return np.concatenate([[0], cuts, [n]]).astype(np.int64)


def reference(x, offsets, op, exclusive, backward, initial):
    out = np.empty_like(x)
    for b, e in zip(offsets[:-1], offsets[1:]):
        seg = x[b:e][::-1] if backward else x[b:e]
        if seg.size == 0:
            continue
        first = initial if initial is not None else (identity(op, x.dtype.name) if exclusive else None)
        if first is not None:
            seg = np.concatenate([np.array([first], x.dtype), seg])
        r = UFUNC[op].accumulate(seg, dtype=x.dtype)
        r = r[:-1] if exclusive else (r[1:] if first is not None else r)
        out[b:e] = r[::-1] if backward else r
    return out


@pytest.mark.parametrize("dtype", ["int32", "int64", "uint8", "float32", "float64"])
@pytest.mark.parametrize("op", ["add", "max", "min", "mul"])
@pytest.mark.parametrize("by", ["flags", "offsets"])
def test_segmented(xp, rng, dtype, op, by):
    for n in SIZES:
        x = (rng.choice([-1, 1], n) if op == "mul" else rng.integers(-50, 50, n)).astype(dtype)
        offsets = offsets_of(rng, n)
        flags = np.zeros(n, bool)
        flags[offsets[:-1][offsets[:-1] < n]] = True
        flags[0] = True
        segs = offsets if by == "offsets" else np.concatenate([np.flatnonzero(flags), [n]])
        for exclusive in (False, True):
            for backward in (False, True):
                initial = 3 if (exclusive and op == "add") else None
                fn = ss.segmented_exclusive_scan if exclusive else ss.segmented_inclusive_scan
                kw = {"offsets": xp.asarray(offsets)} if by == "offsets" else {"flags": xp.asarray(flags)}
                got = fn(xp.asarray(x), op=op, backward=backward, initial=initial, **kw)
                np.testing.assert_array_equal(xp.numpy(got), reference(x, segs, op, exclusive, backward, initial),
                                              err_msg=f"n={n} exclusive={exclusive} backward={backward}")


def test_segmented_needs_one_description(xp):
    x = xp.asarray(np.arange(10, dtype=np.int32))
    with pytest.raises(ValueError, match="flags, offsets"):
        ss.segmented_inclusive_scan(x)
    with pytest.raises(TypeError, match="flags"):
        ss.segmented_inclusive_scan(x, flags=xp.asarray(np.zeros(10, np.int32)))
    with pytest.raises(ValueError, match="flags"):
        ss.segmented_inclusive_scan(x, flags=xp.asarray(np.zeros(9, bool)))


def test_segments_come_second_and_op_by_keyword(xp):
    x = xp.asarray(np.arange(6, dtype=np.int32))
    flags = xp.asarray(np.array([1, 0, 0, 1, 0, 0], bool))
    np.testing.assert_array_equal(xp.numpy(ss.segmented_inclusive_scan(x, flags)), [0, 1, 3, 3, 7, 12])
    np.testing.assert_array_equal(xp.numpy(ss.segmented_inclusive_scan(x, flags, None, "max")), [0, 1, 2, 3, 4, 5])
    offsets = xp.asarray(np.array([0, 2, 6], np.int64))
    np.testing.assert_array_equal(xp.numpy(ss.segmented_exclusive_scan(x, offsets=offsets, op="add")),
                                  [0, 0, 0, 2, 5, 9])
    with pytest.raises(TypeError, match="op is a keyword"):
        ss.segmented_inclusive_scan(x, "add")
    with pytest.raises(TypeError, match="op: expected one of"):
        ss.segmented_inclusive_scan(x, flags, None, flags)
