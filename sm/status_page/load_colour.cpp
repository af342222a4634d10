#include "sm/status_page/load_colour.h"

namespace ibsm::status {

unsigned load_step(uint64_t routes, uint64_t max) {
  if (routes == 0) return 0;
  if (routes >= max) return 5;
  // ceil(5 * routes / max) in integers: 1..5 (no fabric has 2^61 routes).
  return static_cast<unsigned>((routes * 5 + max - 1) / max);
}

}  // namespace ibsm::status
