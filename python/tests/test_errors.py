"""Bad input: a Python exception naming the argument, raised before any work; nothing written."""

import numpy as np
import pytest

import streamscan as ss


def test_dtype_errors_are_type_errors(xp):
    x = xp.asarray(np.arange(10, dtype=np.float32))
    with pytest.raises(TypeError, match="op"):
        ss.inclusive_scan(x, "xor")
    with pytest.raises(ValueError, match="op"):
        ss.inclusive_scan(x, "subtract")
    with pytest.raises(TypeError, match="dtype"):
        ss.inclusive_scan(x, dtype="complex64")
    with pytest.raises(TypeError, match="dtype"):
        ss.inclusive_scan(x, dtype=bool)
    with pytest.raises(TypeError, match="x"):
        ss.inclusive_scan(np.arange(4, dtype=np.complex64))
    with pytest.raises(TypeError, match="x"):
        ss.inclusive_scan("not an array")
    with pytest.raises(TypeError, match="initial"):
        ss.inclusive_scan(xp.asarray(np.arange(10, dtype=np.int32)), initial=1.5)
    with pytest.raises(OverflowError, match="initial"):
        ss.inclusive_scan(xp.asarray(np.arange(10, dtype=np.int8)), "max", initial=300)  # max keeps int8


def test_out_errors_leave_out_untouched(xp):
    x = xp.asarray(np.arange(10, dtype=np.int32))
    poison = np.full(10, -99, np.int64)
    out = xp.asarray(poison)
    with pytest.raises(TypeError, match="out"):
        ss.inclusive_scan(x, out=out, dtype="int32")  # int64 out for an int32 accumulator
    np.testing.assert_array_equal(xp.numpy(out), poison)
    with pytest.raises(ValueError, match="out"):
        ss.inclusive_scan(x, out=xp.asarray(np.zeros(9, np.int32)))
    with pytest.raises(ValueError, match="x"):
        ss.inclusive_scan(xp.asarray(np.int32(5)))
    with pytest.raises(ValueError, match="strategy"):
        ss.inclusive_scan(x, strategy="fastest")


def test_library_mismatch(xp):
    if xp.name == "numpy":
        pytest.skip("needs a second library")
    x = xp.asarray(np.arange(10, dtype=np.int32))
    with pytest.raises(ValueError, match="out"):
        ss.inclusive_scan(x, out=np.zeros(10, np.int32))


def test_stream_argument_is_checked(xp):
    with pytest.raises(TypeError, match="stream"):
        ss.inclusive_scan(xp.asarray(np.arange(10, dtype=np.int32)), stream="default")
