// Segmented reduction and the iterators of streamscan/iterators.hpp on the
// CPU back end.
#include <type_traits>

#include "cpu_backend.hpp"

STREAMSCAN_SEGMENTED_REDUCE_TESTS(segmented_reduce_cpu, streamscan_test::cpu_backend)

namespace {

TEST(iterators_cpu, Arithmetic) {
  namespace ss = streamscan;
  const ss::counting_iterator<std::int64_t> a(10);
  auto b = a + 5;
  EXPECT_EQ(*b, 15);
  EXPECT_EQ(b[2], 17);
  EXPECT_EQ(b - a, 5);
  EXPECT_TRUE(a < b && b > a && a <= a && a != b && a + 5 == b);
  --b;
  b += 2;
  EXPECT_EQ(*b++, 16);
  EXPECT_EQ(*b, 17);
  EXPECT_EQ(*(2 + a), 12);
  const ss::constant_iterator<double> c(2.5);
  EXPECT_EQ(c[1000], 2.5);
  EXPECT_EQ((c + 7) - c, 7);
  const std::vector<std::int32_t> v = {1, 2, 3, 4};
  auto sq = ss::make_transform_iterator(v.data(), [](std::int32_t x) { return std::int64_t{x} * x; });
  static_assert(std::is_same_v<decltype(sq)::value_type, std::int64_t>);
  static_assert(std::is_same_v<std::iterator_traits<decltype(sq)>::iterator_category,
                               std::random_access_iterator_tag>);
  EXPECT_EQ(sq[3], 16);
  auto sq2 = sq;
  sq2 = sq + 2;  // assignable, though the lambda is not
  EXPECT_EQ(*sq2, 9);
  EXPECT_EQ(sq2 - sq, 2);
  EXPECT_EQ(sq2.base(), v.data() + 2);
}


// y = A x for a CSR matrix as one call: a segmented reduction, by row
// pointers, of a transform of the non-zeros' indices (ModernGPU's
// transform_segreduce).
struct csr_product {
  const double* values;
  const std::int64_t* columns;
  const double* x;
  double operator()(std::int64_t k) const { return values[k] * x[columns[k]]; }
};

TEST(segmented_reduce_cpu_examples, SparseMatrixVectorProduct) {
  namespace ss = streamscan;
  // [[1 0 2], [0 0 0], [0 3 0], [4 5 6]]
  const std::vector<std::int64_t> row_ptr = {0, 2, 2, 3, 6}, col = {0, 2, 1, 0, 1, 2};
  const std::vector<double> val = {1, 2, 3, 4, 5, 6}, x = {1, 10, 100};
  std::vector<double> y(4, -1);
  ss::cpu::segmented_reduce(ss::make_transform_iterator(ss::counting_iterator<std::int64_t>(0),
                                                        csr_product{val.data(), col.data(), x.data()}),
                            y.data(), 6, ss::segment_offsets{row_ptr.data(), 4}, 0.0);
  EXPECT_EQ(y, (std::vector<double>{201, 0, 30, 654}));
}

}  // namespace
