// streamscan/status.hpp - error reporting shared by every back end.
//
// The two-phase form of every algorithm returns a `status`; the convenience
// form throws `streamscan::error` carrying the same status. A failed call never
// writes to its output: arguments are validated before any work is queued.
#pragma once

#include <stdexcept>
#include <string>
#include <utility>

namespace streamscan {

enum class errc {
  success = 0,
  invalid_argument,        // null pointer, negative size, ...
  temp_storage_too_small,  // two-phase form: the temp buffer is smaller than the query said
  inaccessible_pointer,    // CUDA back end: a pointer the GPU cannot dereference (host memory)
  cuda_error,              // a CUDA runtime call or kernel launch failed
  communication_error,     // a collective between ranks failed (NCCL, or a simulated group)
  zero_pivot,              // an elimination without pivoting met a zero pivot (tridiagonal_solve)
};

inline const char* to_string(errc code) noexcept {
  switch (code) {
    case errc::success: return "success";
    case errc::invalid_argument: return "invalid argument";
    case errc::temp_storage_too_small: return "temp storage too small";
    case errc::inaccessible_pointer: return "pointer not accessible by the device";
    case errc::cuda_error: return "CUDA error";
    case errc::communication_error: return "communication error";
    case errc::zero_pivot: return "zero pivot";
  }
  return "unknown error";
}

// Result of a two-phase call. Cheap on success (no allocation); on failure the
// message names the offending argument, e.g. "streamscan::cuda::inclusive_scan:
// argument 'n' is negative (-5)".
class status {
 public:
  status() = default;
  status(errc code, std::string message, int cuda_code = 0)
      : code_(code), cuda_code_(cuda_code), message_(std::move(message)) {}

  static status ok() { return {}; }

  errc code() const noexcept { return code_; }
  bool is_ok() const noexcept { return code_ == errc::success; }
  explicit operator bool() const noexcept { return is_ok(); }
  // The cudaError_t value when code() == errc::cuda_error, else 0.
  int cuda_code() const noexcept { return cuda_code_; }
  const std::string& message() const noexcept { return message_; }

 private:
  errc code_ = errc::success;
  int cuda_code_ = 0;
  std::string message_;
};

// Thrown by the convenience (allocating) forms.
class error : public std::runtime_error {
 public:
  explicit error(status s) : std::runtime_error(s.message()), status_(std::move(s)) {}
  errc code() const noexcept { return status_.code(); }
  int cuda_code() const noexcept { return status_.cuda_code(); }
  const status& get_status() const noexcept { return status_; }

 private:
  status status_;
};

inline void throw_if_error(status s) {
  if (!s.is_ok()) throw error(std::move(s));
}

namespace detail {
inline status invalid_argument(const char* function, const std::string& what) {
  return status(errc::invalid_argument, std::string(function) + ": " + what);
}
}  // namespace detail

}  // namespace streamscan
