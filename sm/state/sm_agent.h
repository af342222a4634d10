// The SM's own agent: answers what other SMs and tools ask the SM port
// (SMInfo Get, IBA 14.4), acknowledges traps (TrapRepress, IBA 14.3) and
// notes that a heavy sweep is due, and answers anything else it does not
// serve with an error status instead of silence.
#pragma once

#include <cstdint>
#include <functional>

#include "mad/base/log.h"
#include "mad/dispatcher.h"
#include "mad/wire/mad_header.h"
#include "mad/wire/notice.h"
#include "mad/wire/sm_info.h"

namespace ibsm {

struct SmIdentity {
  Guid port_guid;
  uint64_t sm_key = 0;
  uint8_t priority = 0;  // 0-15 (OpenSM's -p)
};

class SmAgent {
 public:
  SmAgent(MadDispatcher& dispatcher, SmIdentity identity, LogSink& log = null_log_sink());

  void set_state(uint8_t sm_state) { state_ = sm_state; }
  uint8_t state() const { return state_; }
  // A trap or an SMInfo state change asked for a heavy sweep since the last take.
  bool take_sweep_request();
  uint64_t traps_received() const { return traps_; }
  uint64_t requests_answered() const { return answered_; }

  // Called with the Notice of every trap received (after the TrapRepress),
  // so the SA can report it to subscribers as OpenSM does.
  void set_trap_listener(std::function<void(const wire::Notice&)> listener) { trap_listener_ = std::move(listener); }

  // The dispatcher's request handler (installed by the constructor).
  void on_request(const MadPacket& request);

 private:
  void respond(const MadPacket& request, const wire::MadBuffer& answer);
  wire::SmInfo my_sm_info() const;

  MadDispatcher& dispatcher_;
  SmIdentity identity_;
  LogSink& log_;
  uint8_t state_ = wire::sm_state::discovering;
  bool sweep_requested_ = false;
  std::function<void(const wire::Notice&)> trap_listener_;
  uint64_t traps_ = 0;
  uint64_t answered_ = 0;
};

}  // namespace ibsm
