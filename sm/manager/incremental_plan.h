// What the master's next sweep may be when a change was reported: an
// incremental resweep of the switches named (trap 128 issuers, switches
// whose PortStateChange a light sweep saw), unless something came that only
// a heavy sweep handles (any other trap, a LID moved, an SM started).
// The manager fills it between sweeps and takes it when it sweeps.
#pragma once

#include <set>
#include <vector>

#include "mad/base/types.h"

namespace ibsm {

class IncrementalPlan {
 public:
  void add_switch(Guid g) { switches_.insert(g); }
  // A change no incremental pass handles: the sweep due is a heavy one.
  void need_full() { full_ = true; }
  bool full() const { return full_; }
  bool empty() const { return switches_.empty(); }
  // The switches named so far; the plan starts empty again.
  std::vector<Guid> take() {
    std::vector<Guid> out(switches_.begin(), switches_.end());
    clear();
    return out;
  }
  void clear() {
    switches_.clear();
    full_ = false;
  }

 private:
  std::set<Guid> switches_;
  bool full_ = false;
};

}  // namespace ibsm
