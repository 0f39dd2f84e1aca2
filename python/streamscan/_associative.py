"""associative_scan: an inclusive scan with the caller's operator, compiled at run time.

The operator is C++ source, the body of ``combine(x, y)`` on a struct whose
fields are the caller's arrays (struct of arrays). It is put into a generated
source that, for device arrays, runs the library's segmented scan kernel
(``streamscan/cuda/kernels/zip_scan_kernel.cuh``: the rows of the arrays laid
end to end, each scanned on its own) and is compiled by NVRTC for the current
GPU, and for host arrays runs a sequential loop a row and is compiled by the
host C++ compiler into a shared library. What was compiled is kept in the
process and on disk (``$STREAMSCAN_CACHE_DIR``, else ``~/.cache/streamscan``),
keyed by a hash of the generated source, the compiler and its options, the
architecture and the package's version.

The device module also holds the one-warp-a-row entry (``zip_rows_chunks``),
which the GPU module launches for calls with many rows of whole vectors
(``zip_chunk_plan::fits``: the batched rows of sequence models); other calls
take the look-back kernel. ``STREAMSCAN_ASSOCIATIVE_ROWS=lookback`` leaves the
one-warp-a-row entry out (every call on the look-back kernel), for comparison;
the generated source differs, so it is a module of its own in the caches.
"""

from __future__ import annotations

import contextlib
import ctypes
import hashlib
import keyword
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any, Dict, List, Sequence, Tuple

from . import _core

__all__ = ["associative_scan", "CompileError", "cache_info", "clear_memory_cache"]

VERSION = "0.1.0"  # the package's (streamscan.__version__): part of every cache key

# The dtypes a field may have, and their C++ names (builtin names: the same
# under NVRTC, which has no standard library, and under the host compiler).
CTYPES = {
    "bool": "bool", "int8": "signed char", "int16": "short", "int32": "int", "int64": "long long",
    "uint8": "unsigned char", "uint16": "unsigned short", "uint32": "unsigned int",
    "uint64": "unsigned long long", "float32": "float", "float64": "double",
    # 16-bit floats are float in the struct: read widened, rounded once when written.
    "float16": "float", "bfloat16": "float",
}
# What the arrays of the 16-bit floats hold, on the device (CUDA's types) and on the host
# (the generated source's streamscan_f16 / streamscan_bf16: the bits, converted to and from float).
DEVICE_STORAGE = {"float16": "__half", "bfloat16": "__nv_bfloat16"}
HOST_STORAGE = {"float16": "streamscan_f16", "bfloat16": "streamscan_bf16"}
MAX_FIELDS = 16  # zip_tile_io.cuh's zip_max_fields


class CompileError(ValueError):
    """The operator did not compile. ``log`` holds the compiler's messages;
    the operator's own lines appear as ``combine(N)`` (NVRTC) or
    ``combine:N`` (the host compiler), N counting from 1."""

    def __init__(self, message: str, log: str):
        super().__init__(message)
        self.log = log


# What the caches did since the process started (tests read it).
_stats = {"compiled": 0, "disk_hits": 0, "memory_hits": 0}
_loaded: Dict[Tuple[Any, ...], Any] = {}  # key -> a ctypes function (host) or a module handle (device)
# What a call looks up first: (where, spec.signature) -> the same, so that a repeated call skips
# generating the source, finding the compilers and headers and hashing (microseconds a call).
_known: Dict[Tuple[Any, ...], Any] = {}
_specs: Dict[Tuple[Any, ...], "_Spec"] = {}
_lock = threading.Lock()


def cache_info() -> Dict[str, Any]:
    """How often an operator was compiled, found on disk, or found in this process; the cache folder."""
    return dict(_stats, directory=str(cache_dir()))


def clear_memory_cache() -> None:
    """Forgets what this process loaded (the disk cache stays): the next call reads the disk cache."""
    with _lock:
        _loaded.clear()
        _known.clear()


def cache_dir() -> Path:
    d = os.environ.get("STREAMSCAN_CACHE_DIR")
    return Path(d) if d else Path.home() / ".cache" / "streamscan"


# ---------------------------------------------------------------------------
# The generated source

class _Spec:
    """The struct and the operator: field names, dtypes and C++ types, the operator's body."""

    def __init__(self, body: str, names: Sequence[str], dtypes: Sequence[str], scalar: bool):
        self.body, self.names, self.dtypes, self.scalar = body, tuple(names), tuple(dtypes), scalar
        self.ctypes = tuple(CTYPES[d] for d in dtypes)
        self.signature = (body, self.names, self.dtypes, scalar)  # what the generated sources follow from

    def struct_and_operator(self, qualifier: str) -> str:
        """The struct streamscan_value and the operator streamscan_combine, the
        user's text after a #line directive so that the compiler numbers its lines
        combine(1), combine(2), ..."""
        fields = "".join(f"  {t} {n};\n" for t, n in zip(self.ctypes, self.names))
        if self.scalar:  # the body is written on the values themselves: x, y of the one array's type
            t = self.ctypes[0]
            user = (f"{qualifier}inline {t} streamscan_user(const {t}& x, const {t}& y) {{\n"
                    f"  using value = {t};\n#line 1 \"combine\"\n{self.body}\n}}\n")
            call = "return {streamscan_user(x.v, y.v)};"
        else:
            user = (f"{qualifier}inline streamscan_value streamscan_user(const streamscan_value& x, "
                    f"const streamscan_value& y) {{\n  using value = streamscan_value;\n#line 1 \"combine\"\n"
                    f"{self.body}\n}}\n")
            call = "return streamscan_user(x, y);"
        return (f"struct streamscan_value {{\n{fields}}};\n{user}"
                f"#line 1 \"streamscan_generated\"\n"
                f"struct streamscan_combine {{\n"
                f"  {qualifier}streamscan_value operator()(const streamscan_value& x, const streamscan_value& y) "
                f"const {{ {call} }}\n}};\n")

    def device_source(self, backward: bool, warps: bool = False) -> str:
        fields = ",\n    ".join(
            f"streamscan::cuda::detail::zip_field<{t}, streamscan_value, &streamscan_value::{n}"
            + (f", {DEVICE_STORAGE[d]}>" if d in DEVICE_STORAGE else ">")
            for t, n, d in zip(self.ctypes, self.names, self.dtypes))
        headers = "".join(f"#include <{h}>\n" for d, h in (("float16", "cuda_fp16.h"), ("bfloat16", "cuda_bf16.h"))
                          if d in self.dtypes)
        return (
            "// Generated by streamscan.associative_scan: the caller's operator in the segmented scan\n"
            "// kernel (streamscan/cuda/kernels/zip_scan_kernel.cuh).\n"
            + headers
            + "#include <streamscan/cuda/kernels/zip_scan_kernel.cuh>\n"
            + self.struct_and_operator("__device__ ")
            + "using streamscan_scan = streamscan::cuda::detail::zip_rows_scan<streamscan_value, streamscan_combine, "
            f"{'true' if backward else 'false'},\n    {fields}>;\n"
            "extern \"C\" __global__ void __launch_bounds__(streamscan_scan::threads, "
            "streamscan_scan::min_blocks_per_sm)\n"
            "    streamscan_zip_scan(streamscan::cuda::detail::zip_pointers in, "
            "streamscan::cuda::detail::zip_pointers out, long long n,\n"
            "                        long long length, long long lead, void* status, long long tiles,\n"
            "                        unsigned long long* tile_counter) {\n"
            "  streamscan_scan::run(in, out, n, length, lead, status, tiles, tile_counter);\n"
            "}\n"
            "// The launch's shape (zip_scan_plan), read once by the host.\n"
            "extern \"C\" __device__ unsigned long long streamscan_zip_scan_shape[5] = {\n"
            "    streamscan_scan::shape[0], streamscan_scan::shape[1], streamscan_scan::shape[2],\n"
            "    streamscan_scan::shape[3], streamscan_scan::shape[4]};\n"
            + (_CHUNKS_ENTRY.format(backward="true" if backward else "false", fields=fields) if warps else ""))

    def host_source(self) -> str:
        storage = [HOST_STORAGE.get(d, t) for d, t in zip(self.dtypes, self.ctypes)]
        loads = "".join(f"      x.{n} = static_cast<{t}>(static_cast<const {st}*>(in[{i}])[e]);\n"
                        for i, (t, st, n) in enumerate(zip(self.ctypes, storage, self.names)))
        stores = "".join(f"      if (out[{i}]) static_cast<{st}*>(out[{i}])[e] = static_cast<{st}>(acc.{n});\n"
                         for i, (st, n) in enumerate(zip(storage, self.names)))
        return (
            "// Generated by streamscan.associative_scan: the caller's operator in a sequential scan a row.\n"
            "#include <algorithm>\n#include <cmath>\n#include <cstdint>\n#include <cstring>\n"
            "using std::max;\nusing std::min;\n"
            + (_HOST_16_BIT if any(d in HOST_STORAGE for d in self.dtypes) else "")
            + self.struct_and_operator("")
            + "// rows x length values a field, C order; reverse: each row from its end.\n"
            "extern \"C\" void streamscan_zip_scan(void* const* in, void* const* out, long long rows,\n"
            "                                     long long length, int reverse) {\n"
            "  const streamscan_combine op{};\n"
            "  for (long long r = 0; r < rows; ++r) {\n"
            "    streamscan_value acc{};\n"
            "    for (long long p = 0; p < length; ++p) {\n"
            "      const long long e = r * length + (reverse ? length - 1 - p : p);\n"
            "      streamscan_value x;\n"
            + loads
            + "      acc = p == 0 ? x : op(acc, x);\n"
            + stores
            + "    }\n  }\n}\n")


# The one-warp-a-row entry (unless STREAMSCAN_ASSOCIATIVE_ROWS=lookback), beside the look-back one in the
# same module; the GPU module finds it by name and launches it where its shape's rule allows.
_CHUNKS_ENTRY = """// One warp a row (zip_rows_chunks): many rows of whole vectors, no temp storage.
using streamscan_chunks = streamscan::cuda::detail::zip_rows_chunks<streamscan_value, streamscan_combine, {backward},
    {fields}>;
extern "C" __global__ void __launch_bounds__(streamscan_chunks::threads, streamscan_chunks::min_blocks)
    streamscan_zip_rows_chunks(streamscan::cuda::detail::zip_pointers in, streamscan::cuda::detail::zip_pointers out,
                               long long rows, long long length) {{
  streamscan_chunks::run(in, out, rows, length);
}}
// Its shape (zip_chunk_plan): threads, width, rows an SM from which to take it.
extern "C" __device__ unsigned long long streamscan_zip_rows_chunks_shape[3] = {{
    streamscan_chunks::shape[0], streamscan_chunks::shape[1], streamscan_chunks::shape[2]}};
"""

ROWS_ENV = "STREAMSCAN_ASSOCIATIVE_ROWS"


def _rows_by_warps() -> bool:
    """Whether the device module holds the one-warp-a-row entry: unless STREAMSCAN_ASSOCIATIVE_ROWS=lookback."""
    v = os.environ.get(ROWS_ENV, "")
    if v in ("", "warps"):
        return True
    if v == "lookback":
        return False
    raise ValueError(f"{ROWS_ENV}={v!r}: expected 'warps' (the default: one warp a row where rows are many) or "
                     "'lookback' (every call on the look-back kernel)")


# The host's 16-bit floats: their bits, widened to float exactly and rounded
# from float to the nearest (ties to even), as CUDA's conversions do.
_HOST_16_BIT = r"""struct streamscan_bf16 {
  unsigned short bits;
  streamscan_bf16() = default;
  explicit streamscan_bf16(float f) {
    std::uint32_t u;
    std::memcpy(&u, &f, 4);
    if ((u & 0x7fffffffu) > 0x7f800000u) bits = static_cast<unsigned short>((u >> 16) | 0x40u);  // NaN stays NaN
    else bits = static_cast<unsigned short>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
  }
  explicit operator float() const {
    const std::uint32_t u = static_cast<std::uint32_t>(bits) << 16;
    float f;
    std::memcpy(&f, &u, 4);
    return f;
  }
};
struct streamscan_f16 {
  unsigned short bits;
  streamscan_f16() = default;
  explicit streamscan_f16(float f) {
    std::uint32_t u;
    std::memcpy(&u, &f, 4);
    const std::uint32_t sign = (u >> 16) & 0x8000u, a = u & 0x7fffffffu;
    std::uint32_t h;
    if (a > 0x7f800000u) h = 0x7e00u;                          // NaN
    else if (a >= 0x477ff000u) h = 0x7c00u;                    // 65520 and up (and inf): inf
    else if (a < 0x38800000u) {                                // below 2^-14: subnormal (or zero)
      float m;
      std::memcpy(&m, &a, 4);
      h = static_cast<std::uint32_t>(std::nearbyint(m * 16777216.0f));  // units of 2^-24; 1024 is the least normal
    } else {
      const std::uint32_t r = a - 0x38000000u;                 // exponent rebiased from 127 to 15
      h = (r + 0xfffu + ((r >> 13) & 1u)) >> 13;
    }
    bits = static_cast<unsigned short>(sign | h);
  }
  explicit operator float() const {
    const std::uint32_t sign = static_cast<std::uint32_t>(bits & 0x8000u) << 16, e = (bits >> 10) & 0x1fu,
                        m = bits & 0x3ffu;
    if (e == 0) {
      const float f = static_cast<float>(m) * 5.9604644775390625e-8f;  // 2^-24
      return sign ? -f : f;
    }
    const std::uint32_t u = sign | (e == 31 ? 0x7f800000u | (m << 13) : ((e + 112u) << 23) | (m << 13));
    float f;
    std::memcpy(&f, &u, 4);
    return f;
  }
};
"""


# ---------------------------------------------------------------------------
# Compilers and caches

def _key(*parts: Any) -> str:
    h = hashlib.sha256()
    for p in parts:
        h.update(repr(p).encode())
        h.update(b"\0")
    return h.hexdigest()[:40]


def _write_atomic(path: Path, data: bytes) -> None:
    """Writes data to path through a temporary file renamed over it, so that a
    reader (another process) never sees a partial file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _failed(what: str, log: str) -> CompileError:
    log = log.strip()
    lines = log.splitlines()
    first = next((line for line in lines if "combine" in line and "error" in line), None) or \
        next((line for line in lines if "error" in line), None)
    where = f": {first.strip()}" if first else ""
    return CompileError(f"combine: the operator does not compile ({what}){where}\n{log}", log)


def _host_compiler() -> List[str]:
    for name in (os.environ.get("CXX"), "c++", "g++", "clang++"):
        if name and shutil.which(name):
            return [shutil.which(name)]
    raise RuntimeError("associative_scan on host arrays compiles the operator with a C++ compiler, and none was "
                       "found (set CXX, or put c++ / g++ / clang++ on PATH)")


_HOST_FLAGS = ("-std=c++17", "-O2", "-shared", "-fPIC")


def _host_function(spec: _Spec):
    """The host scan (a ctypes function) of the operator: from this process, the disk cache, or compiled."""
    known = _known.get(("host", spec.signature))
    if known is not None:
        _stats["memory_hits"] += 1
        return known
    source = spec.host_source()
    cxx = _host_compiler()
    key = _key("host", source, cxx, _HOST_FLAGS, sys.platform, VERSION)
    with _lock:
        fn = _loaded.get(key)
        if fn is not None:
            _stats["memory_hits"] += 1
            _known[("host", spec.signature)] = fn
            return fn
        path = cache_dir() / f"combine-{key}.so"
        if path.exists():
            _stats["disk_hits"] += 1
        else:
            with tempfile.TemporaryDirectory(prefix="streamscan-") as work:
                src = Path(work) / "streamscan_zip_scan.cpp"
                src.write_text(source)
                lib = Path(work) / "out.so"
                done = subprocess.run(cxx + list(_HOST_FLAGS) + [str(src), "-o", str(lib)], capture_output=True,
                                      text=True, cwd=work)
                if done.returncode != 0:
                    raise _failed(f"host compiler {cxx[0]}", done.stderr + done.stdout)
                _write_atomic(path, lib.read_bytes())
            _stats["compiled"] += 1
        fn = ctypes.CDLL(str(path)).streamscan_zip_scan
        fn.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_longlong, ctypes.c_longlong, ctypes.c_int]
        fn.restype = None
        _loaded[key] = _known[("host", spec.signature)] = fn
        return fn


def _package_include() -> Path:
    """streamscan's headers: shipped in the package (a wheel), else the source tree's."""
    env = os.environ.get("STREAMSCAN_INCLUDE_DIR")
    here = Path(__file__).resolve().parent
    for d in ([Path(env)] if env else []) + [here / "include", here.parents[1] / "include"]:
        if (d / "streamscan" / "cuda" / "kernels" / "zip_scan_kernel.cuh").exists():
            return d
    raise RuntimeError("associative_scan: streamscan's C++ headers were not found (looked in "
                       f"{here / 'include'} and {here.parents[1] / 'include'}; set STREAMSCAN_INCLUDE_DIR to the "
                       "folder that holds streamscan/)")


def _toolkit_includes(module) -> List[Path]:
    """The CUDA toolkit's include folder and, where it has one, its cccl folder
    (libcu++, which the kernels use through streamscan/nvrtc)."""
    roots = []
    for var in ("CUDA_PATH", "CUDA_HOME", "CUDA_ROOT"):
        if os.environ.get(var):
            roots.append(Path(os.environ[var]) / "include")
    nvcc = shutil.which("nvcc")
    if nvcc:
        roots.append(Path(nvcc).resolve().parents[1] / "include")
    roots.extend(Path(d) for d in module.rtc_build_includes())
    roots.append(Path("/usr/local/cuda/include"))
    for inc in roots:
        for libcu in (inc / "cccl", inc):
            if (libcu / "cuda" / "std" / "cstdint").exists():
                return [libcu, inc] if libcu != inc else [inc]
    raise RuntimeError("associative_scan on device arrays compiles the operator with NVRTC, which needs the CUDA "
                       "toolkit's headers (libcu++: cuda/std/...), and they were not found; set CUDA_PATH or "
                       "CUDA_HOME to the toolkit (looked in: " + ", ".join(str(r) for r in roots) + ")")


def _device_module(module, spec: _Spec, backward: bool, device: int, warps: bool = False):
    """The loaded device module (an opaque handle of `module`, streamscan._cuda) of the operator for `device`;
    warps: with the one-warp-a-row entry too."""
    known = _known.get((device, backward, warps, spec.signature))
    if known is not None:
        _stats["memory_hits"] += 1
        return known
    arch = module.device_arch(device)
    source = spec.device_source(backward, warps)
    include = _package_include()
    options = ["--std=c++17", f"-arch=sm_{arch}", "-default-device", f"-I{include / 'streamscan' / 'nvrtc'}"]
    options += [f"-I{d}" for d in _toolkit_includes(module)] + [f"-I{include}"]
    # The headers' text is part of the key: a changed kernel is a new cubin.
    key = _key("device", source, [o for o in options if not o.startswith("-I")], module.nvrtc_version(), VERSION,
               _headers_digest(include))
    with _lock:
        handle = _loaded.get((key, device))
        if handle is not None:
            _stats["memory_hits"] += 1
            _known[(device, backward, warps, spec.signature)] = handle
            return handle
        path = cache_dir() / f"combine-{key}-sm_{arch}.cubin"
        if path.exists():
            cubin = path.read_bytes()
            _stats["disk_hits"] += 1
        else:
            ok, log, cubin = module.rtc_compile(source, "streamscan_zip_scan.cu", options)
            if not ok:
                raise _failed("NVRTC", log)
            _write_atomic(path, cubin)
            _stats["compiled"] += 1
        handle = module.rtc_load(cubin, device)
        _loaded[(key, device)] = _known[(device, backward, warps, spec.signature)] = handle
        return handle


_digests: Dict[Path, str] = {}


def _headers_digest(include: Path) -> str:
    d = _digests.get(include)
    if d is None:
        h = hashlib.sha256()
        for p in sorted((include / "streamscan").rglob("*")):
            if p.is_file():
                h.update(str(p.relative_to(include)).encode())
                h.update(p.read_bytes())
        d = _digests[include] = h.hexdigest()[:16]
    return d


# ---------------------------------------------------------------------------
# The call

def _fields(xs: Any, names: Any) -> Tuple[List[Any], List[str], bool]:
    """(arrays, field names, scalar): scalar where one array came alone and names= was not given."""
    if isinstance(xs, (tuple, list)):
        arrays, scalar = list(xs), False
        if not arrays:
            raise ValueError("xs: an empty tuple (give one array a field)")
    elif hasattr(xs, "__array_interface__") or hasattr(xs, "__cuda_array_interface__") or \
            hasattr(xs, "__dlpack__") or type(xs).__module__.startswith(("numpy", "torch", "cupy")):
        arrays, scalar = [xs], names is None
    else:
        raise TypeError(f"xs: expected a tuple of arrays (one a field of the struct) or one array, "
                        f"got {type(xs).__name__}")
    if len(arrays) > MAX_FIELDS:
        raise ValueError(f"xs: {len(arrays)} arrays, at most {MAX_FIELDS} fields")
    if names is None:
        names = ["v"] if scalar else [f"f{i}" for i in range(len(arrays))]
    else:
        if isinstance(names, str):
            names = [names] if len(arrays) == 1 else names.replace(",", " ").split()
        names = list(names)
        if len(names) != len(arrays):
            raise ValueError(f"names: {len(names)} names for {len(arrays)} arrays of xs")
        for n in names:
            if not isinstance(n, str) or not n.isidentifier() or keyword.iskeyword(n) or n.startswith("streamscan") \
                    or not n.isascii():
                raise ValueError(f"names: {n!r} is not a C++ field name (ASCII letters, digits, _)")
        if len(set(names)) != len(names):
            raise ValueError(f"names: repeated names in {names}")
    return arrays, names, scalar


def _kept(keep: Any, names: Sequence[str]) -> List[int]:
    if keep is None:
        return list(range(len(names)))
    items = [keep] if isinstance(keep, (str, int)) else list(keep)
    out = []
    for k in items:
        if isinstance(k, bool):
            raise TypeError(f"keep: {k!r} is neither a field name nor an index")
        if isinstance(k, str):
            if k not in names:
                raise ValueError(f"keep: no field named {k!r} (the fields: {', '.join(names)})")
            i = names.index(k)
        elif isinstance(k, int):
            if not -len(names) <= k < len(names):
                raise ValueError(f"keep: index {k} out of range for {len(names)} fields")
            i = k % len(names)
        else:
            raise TypeError(f"keep: {k!r} is neither a field name nor an index")
        if i in out:
            raise ValueError(f"keep: field {names[i]!r} named twice")
        out.append(i)
    if not out:
        raise ValueError("keep: no field kept")
    return out


def _copy(a: _core.Array) -> _core.Array:
    """A new C-order copy of a (16-byte aligned: a fresh allocation)."""
    out = a.lib.new(a, a.shape, a.dtype)
    out.obj[...] = a.obj
    return out


def associative_scan(combine: str, xs: Any, axis: int = -1, reverse: bool = False, *, names: Any = None,
                     keep: Any = None) -> Any:
    """Inclusive scan of `xs` along `axis` with the associative operator `combine`.

    combine: C++ source, the body of a function ``combine(x, y)`` that
    returns ``x`` then ``y`` combined, for example ``"return x + y;"``. It
    must be associative; it need not commute: ``x`` is the earlier element
    (or the fold of the earlier ones), ``y`` the later one. It runs on the GPU
    for device arrays (compiled by NVRTC: CUDA C++, device functions such as
    ``fmaf``, ``max`` and ``min`` are there) and on the host for NumPy arrays
    and torch CPU tensors (compiled by the host C++ compiler, ``$CXX`` or
    ``c++``: standard C++17 with ``<cmath>``, ``<algorithm>``, ``std::max``
    and ``std::min`` as ``max`` and ``min``).

    xs: one array, or a tuple of arrays of one shape, the fields of a struct
    (struct of arrays, like a JAX pytree's leaves), each of dtype bool, int8 to
    int64, uint8 to uint64, float16, bfloat16, float32 or float64 (mixed dtypes
    are fine; a float16 or bfloat16 field is a float in the struct, rounded
    once when written, as linear_recurrence keeps float32 state). With
    one array and no ``names``, ``x`` and ``y`` are values of its type. With a
    tuple, they are structs whose fields are ``names`` (default ``f0``,
    ``f1``, ...), and ``combine`` returns one, e.g. as ``return {...};`` in
    field order; ``value`` names the struct type. The linear recurrence
    h[t] = a[t] h[t-1] + b[t]::

        h = associative_scan("return {x.a * y.a, y.a * x.b + y.b};", (a, b), names=("a", "b"), keep="b")

    axis: the axis to scan along (negative counts from the end); the scan runs
    on its own for every index of the other axes. Arrays scanned along their
    last axis are read in place (C order); other axes are moved last in a
    copy first, and the results are views with the axis moved back.
    reverse: scan from the end (``x`` is then the element nearer the end): the
    same as scanning the arrays flipped along the axis and flipping the result.
    keep: the fields to return (names or indices; default all); the others
    are not written, which saves their bytes.

    Returns the scanned fields of `keep` as a tuple of arrays of the caller's
    library (same shape as xs), or one array where one field is kept or one
    array was given. Device arrays run on the caller's current stream, without
    waiting for the GPU (the first call with an operator compiles it, which
    takes seconds, then it is kept in the process and on disk; see
    ``cache_info()``). Results carry no autograd history. An operator that does
    not compile raises CompileError (a ValueError) with the compiler's log, the
    operator's lines numbered ``combine(1)``, ``combine(2)``, ...
    """
    if not isinstance(combine, str):
        raise TypeError(f"combine: expected C++ source (a str, the body of combine(x, y)), got "
                        f"{type(combine).__name__}")
    arrays, field_names, scalar = _fields(xs, names)
    kept = _kept(keep, field_names)
    described = [_core.as_array(x, f"xs[{i}]") for i, x in enumerate(arrays)]
    first = described[0]
    for i, a in enumerate(described):
        if a.dtype not in CTYPES:
            raise TypeError(f"xs[{i}]: dtype {a.dtype} is not supported (expected one of "
                            f"{', '.join(CTYPES)})")
        if i == 0:
            continue
        _core.same_place(first, a, f"xs[{i}]")
        if tuple(a.shape) != tuple(first.shape):
            raise ValueError(f"xs[{i}]: shape {tuple(a.shape)}, expected xs[0]'s {tuple(first.shape)}")
    shape = tuple(first.shape)
    ax = _core.normalize_axis(axis, None, len(shape))
    signature = (combine, tuple(field_names), tuple(a.dtype for a in described), scalar)
    spec = _specs.get(signature)
    if spec is None:
        if len(_specs) > 1024:  # operators made on the fly: forget them now and then
            _specs.clear()
        spec = _specs[signature] = _Spec(*signature)
    last = len(shape) - 1
    moved = shape[:ax] + shape[ax + 1:] + (shape[ax],)
    length = shape[ax]
    rows = 1
    for extent in moved[:-1]:
        rows *= extent
    # The fields in C order with the axis last: in place where they are, else a copy.
    inputs = []
    for a in described:
        if ax != last:
            a = a.lib.contiguous(a.lib.moveaxis(a, ax, last))
        elif not a.contiguous:
            a = a.lib.contiguous(a)
        if a.cuda and a.ptr % 16 != 0:  # the kernel reads each field in aligned vectors
            a = _copy(a)
        inputs.append(a)
    outputs = {i: first.lib.new(first, moved, described[i].dtype) for i in kept}
    if rows * length > 0:
        if first.cuda:
            module = _core.backend(first)  # raises where the GPU module is missing
            handle = _device_module(module, spec, bool(reverse), first.device, _rows_by_warps())
            _core.run(module.rtc_zip_scan, first, None, handle, [a.ptr for a in inputs],
                      [outputs[i].ptr if i in outputs else 0 for i in range(len(inputs))], rows, length,
                      key=(handle, rows, length))
        else:
            fn = _host_function(spec)
            ins = (ctypes.c_void_p * len(inputs))(*[a.ptr for a in inputs])
            outs = (ctypes.c_void_p * len(inputs))(*[outputs[i].ptr if i in outputs else None
                                                     for i in range(len(inputs))])
            fn(ins, outs, rows, length, 1 if reverse else 0)
    results = []
    for i in kept:
        o = outputs[i]
        if ax != last:
            o = o.lib.moveaxis(o, last, ax)
        results.append(_core.result(first, o.obj))
    if not isinstance(xs, (tuple, list)) or isinstance(keep, (str, int)):
        return results[0]
    return tuple(results)
