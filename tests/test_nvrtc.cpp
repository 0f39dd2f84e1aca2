// The single-pass scan kernel compiled at run time by NVRTC with an operator
// that exists only as source text, as a Python user's would (issue 55, item
// 3): the kernel layers must stay NVRTC-compatible (streamscan/nvrtc/ stands
// in for the standard headers). The operator is the linear recurrence's pair
// composition, on a struct, not commutative. NVRTC compiles on the host, so
// this runs without a GPU; a source that does not compile must fail with its
// line in the log.
#include <gtest/gtest.h>
#include <nvrtc.h>

#include <string>
#include <vector>

namespace {

struct compiled {
  nvrtcResult result = NVRTC_SUCCESS;
  std::string log, lowered;
  std::size_t cubin_bytes = 0;
};

compiled compile(const std::string& source, const std::string& kernel) {
  compiled c;
  nvrtcProgram program = nullptr;
  c.result = nvrtcCreateProgram(&program, source.c_str(), "user_operator.cu", 0, nullptr, nullptr);
  if (c.result != NVRTC_SUCCESS) return c;
  nvrtcAddNameExpression(program, kernel.c_str());
  const std::string include = std::string("-I") + STREAMSCAN_TEST_INCLUDE_DIR;
  const std::string shims = include + "/streamscan/nvrtc";
  const std::string toolkit = std::string("-I") + STREAMSCAN_TEST_CUDA_INCLUDE_DIR;
  const std::string cccl = toolkit + "/cccl";
  const std::vector<const char*> options = {"--std=c++17", "-arch=sm_90", "-default-device", shims.c_str(),
                                            cccl.c_str(), toolkit.c_str(), include.c_str()};
  c.result = nvrtcCompileProgram(program, static_cast<int>(options.size()), options.data());
  std::size_t log_bytes = 0;
  nvrtcGetProgramLogSize(program, &log_bytes);
  c.log.assign(log_bytes, '\0');
  nvrtcGetProgramLog(program, c.log.data());
  if (c.result == NVRTC_SUCCESS) {
    const char* name = nullptr;
    if (nvrtcGetLoweredName(program, kernel.c_str(), &name) == NVRTC_SUCCESS && name) c.lowered = name;
    nvrtcGetCUBINSize(program, &c.cubin_bytes);
  }
  nvrtcDestroyProgram(&program);
  return c;
}

const char* const pair_operator = R"(
#include <streamscan/tuning/scan.hpp>
#include <streamscan/cuda/kernels/single_pass_scan_kernel.cuh>
struct gate_pair { float a, b; };
struct compose {  // (a1, b1) then (a2, b2): h -> a2 (a1 h + b1) + b2
  __device__ gate_pair operator()(const gate_pair& x, const gate_pair& y) const { return {x.a * y.a, y.a * x.b + y.b}; }
};
)";

const char* const pair_kernel =
    "&streamscan::cuda::detail::single_pass_scan_kernel<streamscan::tuning::single_pass_policy_for<gate_pair, false, "
    "0>, streamscan::cuda::detail::look_back_kind::decoupled, gate_pair, const gate_pair*, gate_pair*, compose>";

TEST(nvrtc, single_pass_scan_compiles_with_a_user_operator) {
  const compiled c = compile(pair_operator, pair_kernel);
  ASSERT_EQ(c.result, NVRTC_SUCCESS) << nvrtcGetErrorString(c.result) << "\n" << c.log;
  EXPECT_NE(c.lowered.find("single_pass_scan_kernel"), std::string::npos) << c.lowered;
  EXPECT_GT(c.cubin_bytes, 0u);
}

// An operator with a mistake is an error whose log names the user's line.
TEST(nvrtc, a_broken_operator_names_its_line) {
  std::string broken = pair_operator;
  broken.replace(broken.find("y.a * x.b"), 9, "y.a * x.c");
  const compiled c = compile(broken, pair_kernel);
  EXPECT_EQ(c.result, NVRTC_ERROR_COMPILATION);
  EXPECT_NE(c.log.find("user_operator.cu(6)"), std::string::npos) << c.log;
  EXPECT_NE(c.log.find("\"c\""), std::string::npos) << c.log;
}

// The scan of structs read field by field (zip_scan_kernel.cuh), as
// streamscan.associative_scan generates it: an extern "C" kernel (found
// without a lowered name), a struct of mixed field types, both directions;
// with `chunks`, also the one-warp-a-row entry beside it in the same module
// (zip_rows_chunks, as the generator adds it under
// STREAMSCAN_ASSOCIATIVE_ROWS=warps).
std::string zip_source(bool backward, const char* body, bool chunks = false) {
  const std::string direction = backward ? "true" : "false";
  return std::string(R"(
#include <streamscan/cuda/kernels/zip_scan_kernel.cuh>
struct value { float v; long long i; };
struct first_max {
  __device__ value operator()(const value& x, const value& y) const {
#line 1 "combine"
)") + body + R"(
  }
};
using scan = streamscan::cuda::detail::zip_rows_scan<value, first_max, )" + direction + R"(,
    streamscan::cuda::detail::zip_field<float, value, &value::v>,
    streamscan::cuda::detail::zip_field<long long, value, &value::i>>;
extern "C" __global__ void __launch_bounds__(scan::threads, scan::min_blocks_per_sm)
    zip_scan(streamscan::cuda::detail::zip_pointers in, streamscan::cuda::detail::zip_pointers out, long long n,
             long long length, long long lead, void* status, long long tiles, unsigned long long* counter) {
  scan::run(in, out, n, length, lead, status, tiles, counter);
}
extern "C" __device__ unsigned long long zip_scan_shape[5] = {scan::shape[0], scan::shape[1], scan::shape[2], scan::shape[3], scan::shape[4]};
)" + (chunks ? R"(
using chunks = streamscan::cuda::detail::zip_rows_chunks<value, first_max, )" + direction + R"(,
    streamscan::cuda::detail::zip_field<float, value, &value::v>,
    streamscan::cuda::detail::zip_field<long long, value, &value::i>>;
extern "C" __global__ void __launch_bounds__(chunks::threads)
    zip_rows_chunks(streamscan::cuda::detail::zip_pointers in, streamscan::cuda::detail::zip_pointers out,
                    long long rows, long long length) {
  chunks::run(in, out, rows, length);
}
extern "C" __device__ unsigned long long zip_rows_chunks_shape[3] = {chunks::shape[0], chunks::shape[1], chunks::shape[2]};
)"
                                                                                                            : "");
}

TEST(nvrtc, zip_scan_compiles_with_a_user_operator) {
  for (const bool backward : {false, true}) {
    const compiled c = compile(zip_source(backward, "return y.v > x.v ? y : x;"), "zip_scan");
    ASSERT_EQ(c.result, NVRTC_SUCCESS) << "backward " << backward << ": " << nvrtcGetErrorString(c.result) << "\n"
                                       << c.log;
    EXPECT_EQ(c.lowered, "zip_scan") << "an extern \"C\" kernel keeps its name";
    EXPECT_GT(c.cubin_bytes, 0u);
  }
}

TEST(nvrtc, zip_rows_chunks_compiles_beside_the_look_back_entry) {
  for (const bool backward : {false, true}) {
    const compiled c = compile(zip_source(backward, "return y.v > x.v ? y : x;", true), "zip_rows_chunks");
    ASSERT_EQ(c.result, NVRTC_SUCCESS) << "backward " << backward << ": " << nvrtcGetErrorString(c.result) << "\n"
                                       << c.log;
    EXPECT_EQ(c.lowered, "zip_rows_chunks") << "an extern \"C\" kernel keeps its name";
    EXPECT_GT(c.cubin_bytes, 0u);
  }
}

TEST(nvrtc, a_broken_zip_operator_names_its_line) {
  const compiled c = compile(zip_source(false, "value r = x;\nr.v = y.w;\nreturn r;"), "zip_scan");
  EXPECT_EQ(c.result, NVRTC_ERROR_COMPILATION);
  EXPECT_NE(c.log.find("combine(2)"), std::string::npos) << c.log;
}

}  // namespace
