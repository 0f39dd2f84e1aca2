// The radix sorts' size sweep: 4-byte keys (uint32, int32, float) (sweep_sort_body.cuh).
#include "sweep_sort_body.cuh"

namespace {
using namespace streamscan_test::sweep_sort;
namespace st = streamscan_test;
namespace sw = streamscan_test::sweep;

TEST_F(sweep_sort, four_byte_keys) {
  sw::arena arena;
  auto rng = st::make_rng("sweep_sort_4");
  run_sizes<std::uint32_t>(arena, rng);
  run_sizes<std::int32_t>(arena, rng);
  run_sizes<float>(arena, rng);
}

}  // namespace
