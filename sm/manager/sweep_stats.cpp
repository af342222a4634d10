#include "sm/manager/sweep_stats.h"

namespace ibsm {

const char* sweep_kind_name(SweepKind kind) {
  switch (kind) {
    case SweepKind::heavy: return "heavy";
    case SweepKind::light: return "light";
    case SweepKind::discovery: return "discovery";
    case SweepKind::incremental: return "incremental";
  }
  return "unknown";
}

}  // namespace ibsm
