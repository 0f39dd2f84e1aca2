// python/src/calls.hpp - the type-erased calls between the Python module and
// the library.
//
// The module (module.cpp, nanobind) turns Python arguments into these plain
// records; each back end (the CPU's .cpp files, the GPU's .cu files) runs
// them through the library's two-phase calls: temp == nullptr asks for the
// temp bytes, as in the C++ API. Pointers are addresses the caller's array
// library owns (host memory for the CPU back end, device memory for the GPU
// one). Each extension module links exactly one back end.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <streamscan/status.hpp>

namespace streamscan::python {

// Element types, in the order of the Python side's table (_dtypes.py).
enum class dtype : int {
  bool_,
  int8,
  int16,
  int32,
  int64,
  uint8,
  uint16,
  uint32,
  uint64,
  float16,
  bfloat16,
  float32,
  float64,
};
inline constexpr int dtype_count = 13;

enum class op_code : int { add, mul, max, min, bit_and, bit_or, bit_xor };
inline constexpr int op_count = 7;

// Comparisons of select_if: x `cmp` value.
enum class cmp_code : int { lt, le, gt, ge, eq, ne };
inline constexpr int cmp_count = 6;

// One value of a known dtype, as its bytes.
struct scalar {
  alignas(8) unsigned char bytes[8] = {};
};

// Where and how a call runs: the GPU's device and stream (the CPU ignores both).
struct launch {
  int device = 0;
  std::uintptr_t stream = 0;
};

// inclusive / exclusive scans, plain or segmented, forward or backward.
enum class segments_kind : int { none, head_flags, offsets };

struct scan_args {
  std::uintptr_t in = 0;
  std::uintptr_t out = 0;
  std::int64_t n = 0;
  dtype in_type = dtype::int32;
  dtype acc_type = dtype::int32;  // the output's type
  op_code op = op_code::add;
  bool exclusive = false;
  bool has_init = false;  // always true for exclusive scans
  scalar init;            // of acc_type
  segments_kind segments = segments_kind::none;
  std::uintptr_t segment_data = 0;  // bool flags, or int64 offsets (num_segments + 1 entries)
  std::int64_t num_segments = 0;
  bool backward = false;
  int strategy = 0;  // streamscan::scan_strategy
  // An ncclComm_t's address: x is this rank's shard of one array scanned in
  // rank order across the communicator (streamscan/nccl.cuh); 0: one GPU.
  // Plain scans whose input is of the accumulator's type only.
  std::uintptr_t comm = 0;
};

// Whether a (input, accumulator) pair and an operator are compiled in; the
// Python side casts the input first where they are not.
bool scan_supported(dtype in, dtype acc, op_code op, bool segmented);
// Whether scans across ranks (scan_args::comm) are compiled in: the GPU
// module, built where NCCL was found.
bool ranked_scan_compiled();
status scan(const scan_args& a, void* temp, std::size_t& temp_bytes, const launch& l);

// Compaction and its relatives. num_out: one int64 where the count goes
// (device memory on the GPU).
enum class select_kind : int {
  flagged,    // out = in[flags]
  indices,    // out = flatnonzero(flags) (int64)
  compare,    // out = in[in `cmp` value]
  split,      // out = in[!flags] then in[flags], both stable; count = number of false flags
  partition,  // out = in[flags] then in[!flags], both stable; count = number of true flags
};

struct select_args {
  select_kind kind = select_kind::flagged;
  std::uintptr_t in = 0;
  std::uintptr_t flags = 0;  // bool
  std::uintptr_t out = 0;
  std::uintptr_t num_out = 0;
  std::int64_t n = 0;
  dtype type = dtype::int32;  // the elements' type (only its size matters, but for compare)
  cmp_code cmp = cmp_code::lt;
  scalar value;  // compare's right-hand side, of type
  int strategy = 0;  // streamscan::select_strategy
};

bool select_supported(dtype type, select_kind kind);
status select(const select_args& a, void* temp, std::size_t& temp_bytes, const launch& l);

// Radix sort of keys, with values of value_size bytes (0: keys only).
struct sort_args {
  std::uintptr_t keys_in = 0;
  std::uintptr_t keys_out = 0;
  std::uintptr_t values_in = 0;
  std::uintptr_t values_out = 0;
  std::int64_t n = 0;
  dtype key_type = dtype::uint32;
  int value_size = 0;
  bool descending = false;
  int begin_bit = 0;
  int end_bit = -1;
  int strategy = 0;  // streamscan::sort_strategy
  // An ncclComm_t's address: the keys are this rank's shard of one array
  // sorted across the communicator (streamscan::nccl::sort_keys / sort_pairs;
  // the outputs hold `capacity`); 0: one GPU.
  std::uintptr_t comm = 0;
  std::int64_t capacity = 0;
};

bool sort_supported(dtype key, int value_size);
// Every rank's n (sizes, in rank order) and this rank's index, by an
// all-gather over the communicator at comm (an ncclComm_t's address).
status ranked_sizes(std::uintptr_t comm, std::int64_t n, std::vector<std::int64_t>& sizes, int& rank,
                    const launch& l);
status sort(const sort_args& a, void* temp, std::size_t& temp_bytes, const launch& l);

// y = alpha * A x + beta * y, A in CSR (offsets and indices of one type).
struct spmv_args {
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::int64_t nnz = 0;
  std::uintptr_t offsets = 0;
  std::uintptr_t indices = 0;
  std::uintptr_t values = 0;
  std::uintptr_t x = 0;
  std::uintptr_t y = 0;
  dtype index_type = dtype::int32;
  dtype value_type = dtype::float32;
  double alpha = 1;
  double beta = 0;
  int strategy = 0;  // streamscan::spmv_strategy
};

bool spmv_supported(dtype index, dtype value);
status spmv(const spmv_args& a, void* temp, std::size_t& temp_bytes, const launch& l);

// batch_count tridiagonal systems of n rows, each array batch_count x n
// (row-major); x may be b.
struct tridiagonal_args {
  std::int64_t n = 0;
  std::int64_t batch_count = 0;
  std::uintptr_t lower = 0;
  std::uintptr_t diagonal = 0;
  std::uintptr_t upper = 0;
  std::uintptr_t b = 0;
  std::uintptr_t x = 0;
  dtype type = dtype::float32;
  bool checked = false;
  int strategy = 0;  // streamscan::tridiagonal_strategy
};

bool tridiagonal_supported(dtype type);
status tridiagonal(const tridiagonal_args& a, void* temp, std::size_t& temp_bytes, const launch& l);

// First-order linear recurrences h[t] = a[t] h[t-1] + b[t] (reverse: h[t+1])
// and their gradient (streamscan/linear_recurrence.hpp), over the sequences
// of a strided layout (element offsets, the same in a, b and h): float32,
// float64, and float16 / bfloat16 with float32 state.
struct recurrence_args {
  bool backward = false;  // the gradient: b is dh, h the forward's h (read); grad_* written
  std::uintptr_t a = 0;
  std::uintptr_t b = 0;
  std::uintptr_t h = 0;
  std::uintptr_t initial = 0;  // one value a sequence (s = batch index * channels + channel), or 0
  std::uintptr_t grad_a = 0;
  std::uintptr_t grad_b = 0;
  std::uintptr_t grad_initial = 0;  // or 0
  std::int64_t batch_count = 0;
  std::int64_t length = 0;
  std::int64_t channels = 1;
  std::int64_t time_stride = 1;
  std::int64_t channel_stride = 0;
  std::int64_t batch_stride = 0;
  dtype type = dtype::float32;
  bool reverse = false;
};

bool linear_recurrence_supported(dtype type);
status linear_recurrence(const recurrence_args& a, void* temp, std::size_t& temp_bytes, const launch& l);

// "cpu" or "cuda".
const char* backend_name();

// Kernels compiled at run time (the GPU module only; rtc_impl.cu): NVRTC and
// the CUDA driver, for streamscan.associative_scan's generated source
// (streamscan/cuda/kernels/zip_scan_kernel.cuh).
struct rtc_program {
  bool ok = false;
  std::string log;          // NVRTC's messages, also on success (warnings)
  std::string cubin;        // the code, on success
  std::string unavailable;  // why NVRTC could not be opened (then nothing was compiled)
};
// Compiles `source` (named `name` in the messages) with NVRTC's `options`.
rtc_program rtc_compile(const std::string& source, const std::string& name, const std::vector<std::string>& options);
// NVRTC's version, major * 1000 + minor * 10.
status rtc_nvrtc_version(int& version);
// Compute capability of `device` as major * 10 + minor (90 for sm_90).
status rtc_device_arch(int device, int& arch);
// Loads a cubin of the generated source into `device`'s primary context; the
// handle lives as long as the process.
status rtc_load(const std::string& cubin, int device, std::uintptr_t& handle);
// The scan of zip_scan_kernel.cuh, loaded as `handle`: one input address a
// field, one output address a field (0: not written), rows x length values
// each (C order, the scan along the rows). Two-phase: temp == nullptr asks
// for the bytes (0 where the module's one-warp-a-row entry takes the call).
struct rtc_zip_scan_args {
  std::uintptr_t handle = 0;
  std::vector<std::uintptr_t> in, out;
  std::int64_t rows = 0, length = 0;
};
status rtc_zip_scan(const rtc_zip_scan_args& a, void* temp, std::size_t& temp_bytes, const launch& l);

}  // namespace streamscan::python
