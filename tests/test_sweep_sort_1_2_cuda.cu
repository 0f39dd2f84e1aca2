// The radix sorts' size sweep: 1- and 2-byte keys (sweep_sort_body.cuh).
#include "sweep_sort_body.cuh"

namespace {
using namespace streamscan_test::sweep_sort;
namespace st = streamscan_test;
namespace sw = streamscan_test::sweep;

TEST_F(sweep_sort, one_byte_keys) {
  sw::arena arena;
  auto rng = st::make_rng("sweep_sort_1");
  run_sizes<std::uint8_t>(arena, rng);
  run_sizes<std::int8_t>(arena, rng);
}

TEST_F(sweep_sort, two_byte_keys) {
  sw::arena arena;
  auto rng = st::make_rng("sweep_sort_2");
  run_sizes<std::uint16_t>(arena, rng);
  run_sizes<std::int16_t>(arena, rng);
}

}  // namespace
