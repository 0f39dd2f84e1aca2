// The radix sorts' size sweep: 8-byte keys (uint64, int64, double) (sweep_sort_body.cuh).
#include "sweep_sort_body.cuh"

namespace {
using namespace streamscan_test::sweep_sort;
namespace st = streamscan_test;
namespace sw = streamscan_test::sweep;

TEST_F(sweep_sort, eight_byte_keys) {
  sw::arena arena;
  auto rng = st::make_rng("sweep_sort_8");
  run_sizes<std::uint64_t>(arena, rng);
  run_sizes<std::int64_t>(arena, rng);
  run_sizes<double>(arena, rng);
}

}  // namespace
