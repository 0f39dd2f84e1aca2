"""streamscan: scan-based GPU primitives for CuPy, PyTorch and NumPy arrays.

Every function takes arrays of any of those libraries (or any array with
``__dlpack__`` or ``__cuda_array_interface__``) and returns arrays of the same
library: device arrays run on the GPU back end, on the caller's current
stream (or ``stream=``) and without waiting for the GPU, except where a count
decides the result's size (select, select_if, flatnonzero, split, partition)
or a check was asked for (tridiagonal_solve(check=True)). Host arrays (NumPy,
torch CPU tensors) run on the CPU back end. Temp storage and outputs come from
the caller's library's allocator; with ``stream=`` they are allocated on that
stream (it is made the library's current stream for the call, so it must belong
to the arrays' device), and a count is read back there. Temp storage of up to
1 MiB is kept from call to call, one buffer a stream (not while the stream is
captured into a CUDA graph). Errors are raised before any work is queued:
TypeError for a dtype, ValueError for a shape, a device or a value.
"""

from ._associative import CompileError, associative_scan
from ._core import DTYPES
from ._core import _cuda as _cuda_module
from ._linalg import spmv, tridiagonal_solve
from ._recurrence import linear_recurrence
from ._scan import (cumprod, cumsum, exclusive_scan, inclusive_scan, segmented_exclusive_scan,
                    segmented_inclusive_scan)
from ._select import flatnonzero, partition, select, select_if, split
from ._sort import argsort, sort, sort_pairs

__version__ = "0.1.0"

#: Whether the GPU back end was built (nvcc was found by `pip install .`).
has_cuda = _cuda_module is not None

__all__ = [
    "DTYPES", "has_cuda", "inclusive_scan", "exclusive_scan", "cumsum", "cumprod", "segmented_inclusive_scan",
    "segmented_exclusive_scan", "select", "select_if", "flatnonzero", "split", "partition", "sort", "sort_pairs",
    "argsort", "spmv", "tridiagonal_solve", "linear_recurrence", "associative_scan", "CompileError",
]
