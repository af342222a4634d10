// The performance manager: a periodic PMA sweep (IBA 16.1) over every port
// of the subnet the last heavy sweep configured, as OpenSM's perfmgr does.
// Per port it keeps 64-bit totals of the error, data and packet counters,
// accumulated across clears: PortCounters are 16 bits or narrower and stop
// at their maximum, so a counter past three quarters of its range is cleared
// with a Set (CounterSelect naming it) and counting goes on from there. Where
// the node's ClassPortInfo says PortCountersExtended is supported, the data
// and packet totals come from its 64-bit counters instead.
//
// Ports whose error counters climbed between two readings are reported: a
// log line per port naming node, port and counters, and error_ports() for
// the metrics and the status page. A node that does not answer is counted
// and skipped until the next sweep, never fatal.
//
// Asynchronous, like the standby's SMInfo polls: poll(now, subnet) submits
// queries to the dispatcher (at most max_outstanding at once) and the answers
// only record what they carry; nothing is sent from a completion, so a heavy
// sweep that waits on the same dispatcher is not joined by new PMA queries.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "mad/base/clock.h"
#include "mad/base/log.h"
#include "mad/dispatcher.h"
#include "mad/wire/perf_counters.h"
#include "sm/fabric/subnet_snapshot.h"

namespace ibsm {

// OpenSM's perfmgr keys, with its defaults.
struct PerfManagerOptions {
  bool enabled = false;                   // perfmgr
  uint32_t sweep_time_s = 180;            // perfmgr_sweep_time_s: seconds from one sweep's start to the next
  uint32_t max_outstanding_queries = 500; // perfmgr_max_outstanding_queries
  bool ignore_cas = false;                // perfmgr_ignore_cas: switch ports only
  bool rm_nodes = true;                   // perfmgr_rm_nodes: forget ports that left the subnet
  bool log_errors = true;                 // perfmgr_log_errors: a log line per port whose errors climbed
  bool query_cpi = true;                  // perfmgr_query_cpi: ClassPortInfo first (extended counters?)
};

// Indices of PortPerf::errors, in wire::port_error_counters order.
enum class PortError : uint8_t {
  symbol_errors = 0,
  link_error_recovery,
  link_downed,
  rcv_errors,
  rcv_remote_physical_errors,
  rcv_switch_relay_errors,
  xmit_discards,
  xmit_constraint_errors,
  rcv_constraint_errors,
  local_link_integrity_errors,
  excessive_buffer_overrun_errors,
  vl15_dropped,
};
static_assert(wire::port_error_counters[static_cast<size_t>(PortError::xmit_discards)].select ==
              wire::counter_select::xmit_discards);
static_assert(wire::port_error_counters[static_cast<size_t>(PortError::vl15_dropped)].select ==
              wire::counter_select::vl15_dropped);

// Indices of PortPerf::data, in wire::port_data_counters order.
enum class PortData : uint8_t { xmit_data = 0, rcv_data, xmit_pkts, rcv_pkts };
static_assert(wire::port_data_counters[static_cast<size_t>(PortData::rcv_pkts)].select == wire::counter_select::rcv_pkts);

// One port as the performance manager knows it.
struct PortPerf {
  Guid node_guid;
  std::string node_description;
  uint8_t port = 0;
  Lid lid;                   // where its PMA was asked
  bool is_switch = false;
  bool extended = false;     // data totals from PortCountersExtended
  // Totals since this manager first read the port (the first reading's
  // values included), in wire::port_error_counters / PortData order; data
  // in 4-octet words as the PMA counts them.
  std::array<uint64_t, wire::port_error_counter_count> errors{};
  std::array<uint64_t, wire::port_data_counter_count> data{};
  // What the last reading added (zero after the first).
  std::array<uint64_t, wire::port_error_counter_count> error_deltas{};
  std::array<uint64_t, wire::port_data_counter_count> data_deltas{};
  Micros last_read = 0;      // when the last reading arrived; 0: never answered
  Micros previous_read = 0;  // the reading before it (the deltas' interval)
  uint64_t readings = 0;           // PortCounters answers
  uint64_t extended_readings = 0;  // PortCountersExtended answers
  uint64_t clears = 0;       // Sets that cleared a counter near its maximum
  uint64_t unanswered = 0;   // sweeps in which it did not answer
  bool answered_last = false;
  // What the PMA held at the last reading (or after the last clear): the
  // base the next reading's deltas are taken from.
  std::array<uint64_t, wire::port_error_counter_count> raw_errors{};
  std::array<uint64_t, wire::port_data_counter_count> raw_data{};

  uint64_t total(PortError e) const { return errors[static_cast<size_t>(e)]; }
  uint64_t total(PortData d) const { return data[static_cast<size_t>(d)]; }
  uint64_t error_total() const;
  uint64_t error_delta() const;
};

// A port whose error counters climbed in the last sweep: which, by how much.
struct PortErrorReport {
  Guid node_guid;
  std::string node_description;
  uint8_t port = 0;
  Lid lid;
  std::array<uint64_t, wire::port_error_counter_count> deltas{};
};

struct PerfSweepStats {
  uint64_t sweeps = 0;            // completed
  uint64_t queries = 0;           // PMA requests submitted, sets included
  uint64_t answered = 0;
  uint64_t unanswered = 0;        // timed out or refused
  uint64_t clears = 0;            // counter-clearing Sets sent
  uint64_t unresponsive_ports = 0;  // ports skipped in the last sweep because their node did not answer
  size_t max_in_flight = 0;       // the most queries outstanding at once
  Micros last_start = 0;
  Micros last_duration = 0;
};

class PerfManager {
 public:
  PerfManager(MadDispatcher& dispatcher, const Clock& clock, LogSink& log, PerfManagerOptions options = {});
  ~PerfManager();
  PerfManager(const PerfManager&) = delete;
  PerfManager& operator=(const PerfManager&) = delete;

  // Starts a sweep of `subnet` when one is due (sweep_time_s after the last
  // started, and the last is over) and submits what the in-flight bound
  // allows. Returns whether it submitted anything (the caller then lets the
  // dispatcher send it). Null subnet or disabled: nothing.
  bool poll(Micros now, const std::shared_ptr<const SubnetSnapshot>& subnet);
  // When poll() next has work: the next sweep, or now while queries wait
  // for room; nullopt when disabled or only answers are awaited.
  std::optional<Micros> next_deadline() const;

  // Hot reload (SIGHUP): takes effect from the next sweep.
  void set_options(const PerfManagerOptions& options);
  const PerfManagerOptions& options() const { return options_; }
  bool sweeping() const { return sweep_ != nullptr; }
  size_t in_flight() const { return in_flight_; }

  // The table, by (node GUID, port): a read-only view for the metrics.
  const std::map<std::pair<Guid, uint8_t>, PortPerf>& ports() const { return ports_; }
  const PortPerf* port(Guid node_guid, uint8_t port) const;
  // The ports whose error counters climbed in the last completed sweep.
  const std::vector<PortErrorReport>& error_ports() const { return error_ports_; }
  const PerfSweepStats& stats() const { return stats_; }

  // "SymbolErrorCounter", ... in wire::port_error_counters order (as perfquery names them).
  static std::string_view error_counter_name(size_t index);

 private:
  struct Sweep;
  struct NodeTarget;
  struct Task;

  void start(Micros now, std::shared_ptr<const SubnetSnapshot> subnet);
  void finish(Micros now);
  void submit(const Task& task);
  void on_class_port_info(size_t node, Result<MadPacket> answer);
  void on_counters(size_t node, uint8_t port, Result<MadPacket> answer);
  void on_extended(size_t node, uint8_t port, Result<MadPacket> answer);
  void on_cleared(size_t node, uint8_t port, uint16_t select, Result<MadPacket> answer);
  void queue_ports(size_t node);
  void port_unanswered(const NodeTarget& node, uint8_t port);
  void answered(Result<MadPacket>& answer);
  void maybe_finish();
  PortPerf& entry(const NodeTarget& node, uint8_t port);

  MadDispatcher& dispatcher_;
  const Clock& clock_;
  LogSink& log_;
  PerfManagerOptions options_;
  std::unique_ptr<Sweep> sweep_;  // the sweep under way, if any
  size_t in_flight_ = 0;
  // Bumped at every sweep: an answer for an earlier sweep's query is ignored.
  uint64_t generation_ = 0;
  std::optional<Micros> next_sweep_;  // nullopt: as soon as there is a subnet
  std::map<Guid, uint16_t> capability_;  // PerfMgt ClassPortInfo:CapabilityMask by node GUID
  std::map<std::pair<Guid, uint8_t>, PortPerf> ports_;
  std::vector<PortErrorReport> error_ports_;
  PerfSweepStats stats_;
};

}  // namespace ibsm
