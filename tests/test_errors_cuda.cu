// Bad input on the CUDA back end: a clear error naming the argument, and the
// output left untouched.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <streamscan/cuda.cuh>

#include "common/cuda_helpers.cuh"
#include "common/select_oracle.hpp"
#include "common/wrapped_iterator.hpp"
#include "sort_test_body.hpp"

namespace {
namespace ss = streamscan;
namespace st = streamscan_test;

constexpr std::int32_t sentinel = 0x5eed;
constexpr std::int64_t n = 100000;

class errors_cuda : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!st::gpu_present()) GTEST_SKIP() << "cuda back end unavailable: no GPU";
    in_ = std::make_unique<st::device_buffer<std::int32_t>>(n);
    out_ = std::make_unique<st::device_buffer<std::int32_t>>(n);
    in_->upload(std::vector<std::int32_t>(n, 1));
    out_->upload(std::vector<std::int32_t>(n, sentinel));
  }
  void expect_output_untouched() {
    STREAMSCAN_TEST_CUDA(cudaDeviceSynchronize());
    std::vector<std::int32_t> host;
    out_->download(host);
    EXPECT_EQ(host, std::vector<std::int32_t>(n, sentinel));
  }
  std::size_t query() {
    std::size_t bytes = 0;
    const ss::status s = ss::cuda::inclusive_scan(nullptr, bytes, cin(), out(), n);
    EXPECT_TRUE(s.is_ok()) << s.message();
    return bytes;
  }
  const std::int32_t* cin() const { return in_->get(); }
  std::int32_t* out() const { return out_->get(); }
  // Allocated in SetUp, after the GPU check, so that GPU-less runs skip cleanly.
  std::unique_ptr<st::device_buffer<std::int32_t>> in_, out_;
};

TEST_F(errors_cuda, negative_size) {
  std::size_t bytes = 0;
  const ss::status s = ss::cuda::inclusive_scan(nullptr, bytes, cin(), out(), -7);
  EXPECT_EQ(s.code(), ss::errc::invalid_argument);
  EXPECT_NE(s.message().find("'n'"), std::string::npos) << s.message();
  EXPECT_THROW(ss::cuda::exclusive_scan(cin(), out(), -1, 0), ss::error);
  expect_output_untouched();
}

TEST_F(errors_cuda, null_pointers) {
  // A size query may pass null data pointers; the run itself may not.
  std::size_t bytes = 0;
  ASSERT_TRUE(ss::cuda::inclusive_scan(nullptr, bytes, static_cast<const std::int32_t*>(nullptr),
                                       static_cast<std::int32_t*>(nullptr), n).is_ok());
  st::device_buffer<unsigned char> temp(bytes);
  const ss::status s1 = ss::cuda::inclusive_scan(temp.get(), bytes, static_cast<const std::int32_t*>(nullptr), out(), n);
  EXPECT_EQ(s1.code(), ss::errc::invalid_argument);
  EXPECT_NE(s1.message().find("'in'"), std::string::npos) << s1.message();
  const ss::status s2 = ss::cuda::inclusive_scan(temp.get(), bytes, cin(), static_cast<std::int32_t*>(nullptr), n);
  EXPECT_EQ(s2.code(), ss::errc::invalid_argument);
  EXPECT_NE(s2.message().find("'out'"), std::string::npos) << s2.message();
  expect_output_untouched();
}

// select_indices refuses an index type that cannot hold n - 1 (before any
// work: the size query already says so), and writes nothing.
TEST_F(errors_cuda, select_indices_type_too_narrow) {
  const std::int64_t m = 300;
  st::device_buffer<unsigned char> flags(m);
  STREAMSCAN_TEST_CUDA(cudaMemset(flags.get(), 1, m));
  st::device_buffer<std::int8_t> out(m);
  STREAMSCAN_TEST_CUDA(cudaMemset(out.get(), 42, m));
  st::device_buffer<std::int64_t> count(1);
  std::size_t bytes = 0;
  const ss::status q = ss::cuda::select_indices(nullptr, bytes, static_cast<const unsigned char*>(flags.get()),
                                                out.get(), m, m, count.get());
  EXPECT_EQ(q.code(), ss::errc::invalid_argument);
  EXPECT_NE(q.message().find("'out'"), std::string::npos) << q.message();
  st::device_buffer<unsigned char> temp(1 << 20);
  bytes = 1 << 20;
  const ss::status s = ss::cuda::select_indices(temp.get(), bytes, static_cast<const unsigned char*>(flags.get()),
                                                out.get(), m, m, count.get());
  EXPECT_EQ(s.code(), ss::errc::invalid_argument);
  std::vector<std::int8_t> host;
  out.download(host);
  EXPECT_EQ(host, std::vector<std::int8_t>(m, 42));
}

// A matrix whose nnz does not fit its offsets' type is refused by the size
// query already (no pointer is read), so no temp is ever sized for it.
TEST_F(errors_cuda, spmv_size_query_refuses_nnz_past_the_offset_type) {
  std::size_t bytes = 0;
  const ss::csr_view<float, std::int32_t, std::int32_t> a{10, 10, std::int64_t{1} << 31, nullptr, nullptr, nullptr};
  const ss::status s = ss::cuda::spmv(nullptr, bytes, a, static_cast<const float*>(nullptr),
                                      static_cast<float*>(nullptr), 1.0f, 0.0f);
  EXPECT_EQ(s.code(), ss::errc::invalid_argument);
  EXPECT_NE(s.message().find("'A.nnz'"), std::string::npos) << s.message();
}

TEST_F(errors_cuda, temp_storage_too_small) {
  const std::size_t bytes = query();
  st::device_buffer<unsigned char> temp(bytes);
  std::size_t too_few = bytes - 1;
  const ss::status s = ss::cuda::inclusive_scan(temp.get(), too_few, cin(), out(), n);
  EXPECT_EQ(s.code(), ss::errc::temp_storage_too_small);
  EXPECT_NE(s.message().find("'temp_bytes'"), std::string::npos) << s.message();
  expect_output_untouched();
}

TEST_F(errors_cuda, scan_then_add_needs_a_readable_output) {
  try {
    ss::cuda::exclusive_scan(cin(), st::write_only_iterator<std::int32_t>(out()), n, 0, ss::plus{}, nullptr,
                             {ss::scan_strategy::scan_then_add});
    FAIL() << "no exception";
  } catch (const ss::error& e) {
    EXPECT_EQ(e.code(), ss::errc::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("'out'"), std::string::npos) << e.what();
  }
  expect_output_untouched();
}

TEST_F(errors_cuda, host_pointers_rejected) {
  if (st::gpu_reads_pageable_memory())
    GTEST_SKIP() << "this GPU can read pageable host memory, so host pointers are valid here";
  const std::size_t bytes = query();
  st::device_buffer<unsigned char> temp(bytes);
  std::vector<std::int32_t> host_in(n, 1), host_out(n, sentinel);
  std::size_t b = bytes;
  const ss::status s1 = ss::cuda::inclusive_scan(temp.get(), b, static_cast<const std::int32_t*>(host_in.data()),
                                                 out(), n);
  EXPECT_EQ(s1.code(), ss::errc::inaccessible_pointer);
  EXPECT_NE(s1.message().find("'in'"), std::string::npos) << s1.message();
  const ss::status s2 = ss::cuda::inclusive_scan(temp.get(), b, cin(), host_out.data(), n);
  EXPECT_EQ(s2.code(), ss::errc::inaccessible_pointer);
  EXPECT_NE(s2.message().find("'out'"), std::string::npos) << s2.message();
  std::vector<unsigned char> host_temp(bytes);
  const ss::status s3 = ss::cuda::inclusive_scan(host_temp.data(), b, cin(), out(), n);
  EXPECT_EQ(s3.code(), ss::errc::inaccessible_pointer);
  EXPECT_NE(s3.message().find("'temp'"), std::string::npos) << s3.message();
  EXPECT_EQ(host_out, std::vector<std::int32_t>(n, sentinel));
  expect_output_untouched();
}

// What the GPU can reach is accepted, whatever allocated it: pinned host
// memory (mapped under unified addressing) and managed memory, as input,
// output and temp storage, whole or from an offset. The pointer check
// recognises device memory by a fast query and must fall back to the full
// one for these.
TEST_F(errors_cuda, pinned_and_managed_memory_accepted) {
  const std::size_t bytes = query() + 256;
  const auto free_host = [](void* p) { cudaFreeHost(p); };
  const auto free_managed = [](void* p) { cudaFree(p); };
  void *pinned = nullptr, *managed = nullptr;
  STREAMSCAN_TEST_CUDA(cudaMallocHost(&pinned, 2 * n * sizeof(std::int32_t) + bytes));
  std::unique_ptr<void, decltype(free_host)> own_pinned(pinned, free_host);
  STREAMSCAN_TEST_CUDA(cudaMallocManaged(&managed, 2 * n * sizeof(std::int32_t) + bytes));
  std::unique_ptr<void, decltype(free_managed)> own_managed(managed, free_managed);
  auto* pinned_values = static_cast<std::int32_t*>(pinned);
  auto* managed_values = static_cast<std::int32_t*>(managed);
  unsigned char* pinned_temp = static_cast<unsigned char*>(pinned) + 2 * n * sizeof(std::int32_t);
  unsigned char* managed_temp = static_cast<unsigned char*>(managed) + 2 * n * sizeof(std::int32_t);
  std::vector<std::int32_t> want(n);
  std::int32_t sum = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    pinned_values[i] = managed_values[i] = static_cast<std::int32_t>(i % 7) - 3;
    want[i] = sum += pinned_values[i];
  }
  struct use {
    const char* what;
    const std::int32_t* in;
    std::int32_t* out;
    void* temp;
  };
  for (const use& u : {use{"pinned in, managed out, device temp", pinned_values, managed_values + n, nullptr},
                       use{"managed in, pinned out, pinned temp", managed_values, pinned_values + n, pinned_temp},
                       use{"offset pinned in, managed temp", pinned_values + 1, out(), managed_temp}}) {
    st::device_buffer<unsigned char> device_temp(bytes);
    std::size_t b = bytes;
    const std::int64_t count = u.in == pinned_values + 1 ? n - 1 : n;
    const ss::status s =
        ss::cuda::inclusive_scan(u.temp != nullptr ? u.temp : device_temp.get(), b, u.in, u.out, count);
    ASSERT_TRUE(s.is_ok()) << u.what << ": " << s.message();
    STREAMSCAN_TEST_CUDA(cudaDeviceSynchronize());
    std::vector<std::int32_t> got(static_cast<std::size_t>(count));
    STREAMSCAN_TEST_CUDA(cudaMemcpy(got.data(), u.out, count * sizeof(std::int32_t), cudaMemcpyDefault));
    for (std::int64_t i = 0; i < count; ++i) {
      const std::int32_t expect = u.in == pinned_values + 1 ? want[i + 1] - want[0] : want[i];
      ASSERT_EQ(got[i], expect) << u.what << " at " << i;
    }
  }
}

// Every array argument beyond in/out is held to the same rule: flags, a
// pair's values, split_and_segment's heads, coo_to_csr's triplets and outputs.
TEST_F(errors_cuda, host_arrays_of_every_call_rejected) {
  if (st::gpu_reads_pageable_memory())
    GTEST_SKIP() << "this GPU can read pageable host memory, so host pointers are valid here";
  std::vector<unsigned char> host_flags(n, 1);
  std::vector<std::int32_t> host_values(n, 1);
  st::device_buffer<unsigned char> flags(n), heads_out(n);
  STREAMSCAN_TEST_CUDA(cudaMemset(flags.get(), 1, n));
  st::device_buffer<std::int64_t> count(1);
  auto expect_named = [](const ss::status& s, const char* arg) {
    EXPECT_EQ(s.code(), ss::errc::inaccessible_pointer) << s.message();
    EXPECT_NE(s.message().find(std::string("'") + arg + "'"), std::string::npos) << s.message();
  };
  // One temp for every call: the largest size any of them asks.
  std::size_t bytes = 0, b = 0;
  const unsigned char* hf = host_flags.data();
  const ss::head_flags device_heads{flags.get()};
  auto grow = [&](const ss::status& s) {
    ASSERT_TRUE(s.is_ok()) << s.message();
    bytes = std::max(bytes, b);
  };
  grow(ss::cuda::select_flagged(nullptr, b, cin(), hf, out(), n, n, count.get()));
  grow(ss::cuda::split(nullptr, b, cin(), hf, out(), n, count.get()));
  grow(ss::cuda::select_indices(nullptr, b, hf, out(), n, n, count.get()));
  grow(ss::cuda::partition_pairs(nullptr, b, cin(), cin(), out(), out(), n, count.get(), st::below{1}));
  grow(ss::cuda::split_and_segment(nullptr, b, cin(), flags.get(), device_heads, out(), heads_out.get(), n));
  st::device_buffer<unsigned char> temp(bytes);
  void* t = temp.get();
  b = bytes;
  expect_named(ss::cuda::select_flagged(t, b, cin(), hf, out(), n, n, count.get()), "flags");
  expect_named(ss::cuda::split(t, b, cin(), hf, out(), n, count.get()), "flags");
  expect_named(ss::cuda::select_indices(t, b, hf, out(), n, n, count.get()), "flags");
  st::device_buffer<std::int32_t> values_out(n);
  expect_named(ss::cuda::partition_pairs(t, b, cin(), static_cast<const std::int32_t*>(host_values.data()), out(),
                                         values_out.get(), n, count.get(), st::below{1}),
               "values");
  expect_named(ss::cuda::partition_pairs(t, b, cin(), cin(), out(), host_values.data(), n, count.get(), st::below{1}),
               "values_out");
  expect_named(ss::cuda::split_and_segment(t, b, cin(), flags.get(), ss::head_flags{hf}, out(), heads_out.get(), n),
               "heads");
  expect_named(ss::cuda::split_and_segment(t, b, cin(), flags.get(), device_heads, out(), host_flags.data(), n),
               "heads_out");
  expect_named(ss::cuda::split_and_segment(t, b, cin(), hf, device_heads, out(), heads_out.get(), n), "flags");

  // coo_to_csr: 3 x 3, one triplet a call whose rows are on the host.
  const std::int32_t host_index[1] = {0};
  const float host_value[1] = {1.f};
  st::device_buffer<std::int32_t> index(1), offsets(4), columns(1);
  st::device_buffer<float> value(1), values(1);
  STREAMSCAN_TEST_CUDA(cudaMemset(index.get(), 0, sizeof(std::int32_t)));
  STREAMSCAN_TEST_CUDA(cudaMemset(value.get(), 0, sizeof(float)));
  std::size_t coo_bytes = 0;
  ASSERT_TRUE(ss::cuda::coo_to_csr(nullptr, coo_bytes, 3, 3, 1, index.get(), index.get(), value.get(), offsets.get(),
                                   columns.get(), values.get(), count.get())
                  .is_ok());
  st::device_buffer<unsigned char> coo_temp(coo_bytes);
  auto coo = [&](const std::int32_t* r, const std::int32_t* c, const float* v) {
    std::size_t cb = coo_bytes;
    return ss::cuda::coo_to_csr(coo_temp.get(), cb, 3, 3, 1, r, c, v, offsets.get(), columns.get(), values.get(),
                                count.get());
  };
  expect_named(coo(host_index, index.get(), value.get()), "coo_rows");
  expect_named(coo(index.get(), host_index, value.get()), "coo_cols");
  expect_named(coo(index.get(), index.get(), host_value), "coo_values");
  expect_output_untouched();
}

TEST_F(errors_cuda, cuda_failure_is_reported) {
  const std::size_t bytes = query();
  st::device_buffer<unsigned char> temp(bytes);
  std::size_t b = bytes;
  ss::cuda::testing::injected_launch_error() = cudaErrorLaunchOutOfResources;
  const ss::status s = ss::cuda::inclusive_scan(temp.get(), b, cin(), out(), n);
  EXPECT_EQ(s.code(), ss::errc::cuda_error);
  EXPECT_EQ(s.cuda_code(), static_cast<int>(cudaErrorLaunchOutOfResources));
  EXPECT_NE(s.message().find("cudaErrorLaunchOutOfResources"), std::string::npos) << s.message();
  ss::cuda::testing::injected_launch_error() = cudaErrorLaunchOutOfResources;
  try {
    ss::cuda::inclusive_scan(cin(), out(), n);
    FAIL() << "no exception";
  } catch (const ss::error& e) {
    EXPECT_EQ(e.code(), ss::errc::cuda_error);
    EXPECT_NE(std::string(e.what()).find("streamscan::cuda::inclusive_scan"), std::string::npos) << e.what();
  }
  expect_output_untouched();
}

TEST_F(errors_cuda, sort_buffers_that_overlap) {
  st::device_buffer<std::uint32_t> m(64);
  m.upload(std::vector<std::uint32_t>(64, 5));
  std::size_t bytes = 0;
  void* temp = m.get();  // any non-null pointer: the buffers are refused first
  st::expect_sort_overlaps_refused(
      m.get(),
      [&](std::uint32_t* a, std::uint32_t* b) {
        ss::double_buffer<std::uint32_t> db(a, b);
        return ss::cuda::radix_sort_keys(temp, bytes, db, 32).message();
      },
      [&](std::uint32_t* ki, std::uint32_t* ko, std::uint32_t* vi, std::uint32_t* vo) {
        return ss::cuda::radix_sort_pairs(temp, bytes, static_cast<const std::uint32_t*>(ki), ko,
                                          static_cast<const std::uint32_t*>(vi), vo, 32)
            .message();
      });
  std::vector<std::uint32_t> after;
  m.download(after);
  EXPECT_EQ(after, std::vector<std::uint32_t>(64, 5));
}

}  // namespace
