// The radix sorts' size sweep: partial bit ranges and the split strategy (sweep_sort_body.cuh).
#include "sweep_sort_body.cuh"

namespace {
using namespace streamscan_test::sweep_sort;
namespace st = streamscan_test;
namespace sw = streamscan_test::sweep;

TEST_F(sweep_sort, partial_bit_ranges_and_split) {
  sw::arena arena;
  auto rng = st::make_rng("sweep_sort_bits");
  run_partial_and_split<std::uint32_t>(arena, rng);
  run_partial_and_split<std::int64_t>(arena, rng);
}

}  // namespace
