// The SM's own agent on QP0: answers what other SMs and tools ask the SM port
// (SMInfo Get and Set, IBA 14.4), acknowledges traps (TrapRepress, IBA 14.3)
// and notes that a heavy sweep is due, and answers anything else it does not
// serve with an error status instead of silence.
//
// SMInfo Set carries the SM control packets (HANDOVER, ACKNOWLEDGE, DISABLE,
// STANDBY, DISCOVER: IBA 14.4.1). The agent checks the SM_Key and hands an
// authenticated one to the control handler, which the SubnetManager
// implements: the agent is the wire, the manager the state machine.
#pragma once

#include <cstdint>
#include <functional>
#include <map>

#include "mad/base/log.h"
#include "mad/dispatcher.h"
#include "mad/wire/mad_header.h"
#include "mad/wire/notice.h"
#include "mad/wire/sm_info.h"

namespace ibsm {

struct SmIdentity {
  Guid port_guid;
  uint64_t sm_key = 0;
  uint8_t priority = 0;  // 0-15 (OpenSM's -p), as advertised in SMInfo
};

// An SMInfo Set that passed the SM_Key check.
struct SmControl {
  uint32_t modifier = 0;   // wire::sm_info_control
  wire::SmInfo sender;     // the SMInfo the sender put in the Set
  MadAddress from;         // where it came from (the permissive LID for DR)
};

struct SmAgentCounters {
  uint64_t traps = 0;             // traps received (each answered with a TrapRepress)
  uint64_t sm_info_gets = 0;
  uint64_t sm_info_sets = 0;      // control packets accepted
  uint64_t sm_key_refusals = 0;   // SMInfo Sets refused for a wrong SM_Key
  uint64_t invalid_controls = 0;  // unknown modifier, or not valid in our state
  uint64_t answered = 0;          // every response the agent sent
  // Generic traps by TrapNumber (IBA 14.2.5: 128 link state, 144 capability
  // change...); vendor traps and unreadable notices count in `traps` only.
  std::map<uint16_t, uint64_t> traps_by_number;
};

class SmAgent {
 public:
  // Returns the status of the answer: ok, or mad_status::invalid_field for a
  // control that is not valid in the SM's state. It runs before the answer
  // is sent, so the answer shows the state the control led to (a HANDOVER is
  // answered by an SM that is MASTER already, IBA 14.4.1.2).
  using ControlHandler = std::function<uint16_t(const SmControl&)>;

  SmAgent(MadDispatcher& dispatcher, SmIdentity identity, LogSink& log = null_log_sink());

  void set_state(uint8_t sm_state) { state_ = sm_state; }
  uint8_t state() const { return state_; }
  void set_priority(uint8_t priority) { identity_.priority = priority; }
  const SmIdentity& identity() const { return identity_; }
  // The master this SM polls. OpenSM puts SM_Key 0 in the HANDOVER it sends
  // to an SM that is not MASTER yet (it "authenticates" only masters), so a
  // HANDOVER with SM_Key 0 is taken from that master's GUID, and from no one
  // else: any other Set must carry our SM_Key.
  void set_followed_master(Guid guid) { followed_master_ = guid; }
  void set_control_handler(ControlHandler handler) { control_ = std::move(handler); }
  // Whether a request comes from a port that runs an SM (the manager knows
  // the ports with IsSM, or asks the port). Such a requester reads our
  // SM_Key in SMInfo even when its Get carries none: OpenSM 3.3.23 sends an
  // empty SMInfo in its Gets and takes an SM that answers SM_Key 0 for one
  // with another key, which it ignores (ERR 2F18), going master beside it.
  // A tool on a port that is no SM (sminfo) still reads 0. The check calls
  // `answer` once, at once or when it knows (the Get is answered then).
  using RequesterCheck = std::function<void(const MadPacket& request, std::function<void(bool is_sm)> answer)>;
  void set_sm_requester_check(RequesterCheck check) { sm_requester_ = std::move(check); }

  // How many traps asked for a heavy sweep since the last take.
  uint64_t take_sweep_requests();
  const SmAgentCounters& counters() const { return counters_; }
  uint64_t traps_received() const { return counters_.traps; }
  uint64_t requests_answered() const { return counters_.answered; }

  // Called with the Notice of every trap received (after the TrapRepress),
  // so the SA can report it to subscribers as OpenSM does.
  void set_trap_listener(std::function<void(const wire::Notice&)> listener) { trap_listener_ = std::move(listener); }
  // What the SM makes of a readable trap, asked after its TrapRepress and
  // before the listener (the manager's filter of repeated traps): whether it
  // is logged, asks for a heavy sweep, and goes to the listener. Without a
  // filter every trap is all three.
  struct TrapOutcome {
    bool log = true;
    bool sweep = true;
    bool report = true;
  };
  using TrapFilterFn = std::function<TrapOutcome(const MadPacket& trap, const wire::Notice& notice)>;
  void set_trap_filter(TrapFilterFn filter) { trap_filter_ = std::move(filter); }

  // Our SMInfo; the SM_Key only for a requester that knows it (IBA 14.4.1.1:
  // an unauthenticated requester reads SM_Key 0).
  wire::SmInfo sm_info(bool with_key) const;

  // The dispatcher's request handler (installed by the constructor).
  void on_request(const MadPacket& request);

 private:
  void respond(const MadPacket& request, const wire::MadBuffer& answer);
  void on_sm_info_set(const MadPacket& request, const wire::SmInfo& sender, uint32_t modifier);
  bool authenticated_set(const wire::SmInfo& sender, uint32_t modifier) const;

  MadDispatcher& dispatcher_;
  SmIdentity identity_;
  LogSink& log_;
  uint8_t state_ = wire::sm_state::discovering;
  Guid followed_master_;
  uint64_t sweep_requests_ = 0;
  ControlHandler control_;
  RequesterCheck sm_requester_;
  std::function<void(const wire::Notice&)> trap_listener_;
  TrapFilterFn trap_filter_;
  SmAgentCounters counters_;
};

}  // namespace ibsm
