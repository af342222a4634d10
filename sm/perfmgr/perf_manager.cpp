#include "sm/perfmgr/perf_manager.h"

#include <algorithm>
#include <numeric>

#include <fmt/format.h>

#include "mad/wire/class_port_info.h"
#include "mad/wire/constants.h"

namespace ibsm {
namespace {

constexpr Micros kMicrosPerSecond = 1'000'000;

// As perfquery prints them (infiniband-diags), in wire::port_error_counters order.
constexpr std::array<std::string_view, wire::port_error_counter_count> kErrorNames{
    "SymbolErrorCounter",         "LinkErrorRecoveryCounter", "LinkDownedCounter",
    "PortRcvErrors",              "PortRcvRemotePhysicalErrors", "PortRcvSwitchRelayErrors",
    "PortXmitDiscards",           "PortXmitConstraintErrors", "PortRcvConstraintErrors",
    "LocalLinkIntegrityErrors",   "ExcessiveBufferOverrunErrors", "VL15Dropped",
};

// A counter this close to its maximum is cleared: it would stop there and
// lose counts before the next sweep.
bool near_max(const wire::PortCounterSpec& c, uint64_t value) { return value >= c.max() - c.max() / 4; }

// The difference between two readings of a counter; a reading below the
// last means someone else cleared it meanwhile: it counted from zero.
uint64_t delta(uint64_t now, uint64_t before) { return now >= before ? now - before : now; }

uint16_t mad_status_of(const MadPacket& p) {
  return static_cast<uint16_t>(wire::get_field(p.data, wire::mad_fields::status));
}

// PMA queries: one retry, since a dead node costs two timeouts per query and
// the sweep goes on without it.
constexpr int kQueryRetries = 1;

}  // namespace

uint64_t PortPerf::error_total() const { return std::accumulate(errors.begin(), errors.end(), uint64_t{0}); }
uint64_t PortPerf::error_delta() const {
  return std::accumulate(error_deltas.begin(), error_deltas.end(), uint64_t{0});
}

std::string_view PerfManager::error_counter_name(size_t index) {
  return index < kErrorNames.size() ? kErrorNames[index] : std::string_view{"?"};
}

struct PerfManager::NodeTarget {
  Guid guid;
  std::string description;
  bool is_switch = false;
  Lid cpi_lid;                                // where ClassPortInfo is asked
  std::vector<std::pair<uint8_t, Lid>> ports; // port number, the LID its PMA answers at
  uint16_t capability = 0;
};

struct PerfManager::Task {
  enum class Kind : uint8_t { class_port_info, counters, extended, clear } kind;
  size_t node = 0;
  uint8_t port = 0;
  Lid lid;
  uint16_t select = 0;  // clear: CounterSelect
};

struct PerfManager::Sweep {
  std::shared_ptr<const SubnetSnapshot> subnet;
  std::vector<NodeTarget> nodes;
  std::deque<Task> queue;
  std::vector<PortErrorReport> errors;
  uint64_t ports_read = 0;
  uint64_t unresponsive_ports = 0;
  Micros start = 0;
};

PerfManager::PerfManager(MadDispatcher& dispatcher, const Clock& clock, LogSink& log, PerfManagerOptions options)
    : dispatcher_(dispatcher), clock_(clock), log_(log), options_(options) {}

PerfManager::~PerfManager() = default;

void PerfManager::set_options(const PerfManagerOptions& options) {
  if (options.sweep_time_s != options_.sweep_time_s && next_sweep_)
    next_sweep_ = stats_.last_start + Micros{options.sweep_time_s} * kMicrosPerSecond;
  options_ = options;
}

const PortPerf* PerfManager::port(Guid node_guid, uint8_t port) const {
  auto it = ports_.find({node_guid, port});
  return it == ports_.end() ? nullptr : &it->second;
}

bool PerfManager::poll(Micros now, const std::shared_ptr<const SubnetSnapshot>& subnet) {
  if (!options_.enabled || !subnet) return false;
  if (!sweep_ && in_flight_ == 0 && (!next_sweep_ || now >= *next_sweep_)) start(now, subnet);
  if (!sweep_) return false;
  bool submitted = false;
  const size_t bound = std::max<uint32_t>(1, options_.max_outstanding_queries);
  while (!sweep_->queue.empty() && in_flight_ < bound) {
    Task task = sweep_->queue.front();
    sweep_->queue.pop_front();
    submit(task);
    submitted = true;
  }
  maybe_finish();
  return submitted;
}

std::optional<Micros> PerfManager::next_deadline() const {
  if (!options_.enabled) return std::nullopt;
  if (sweep_) {
    if (!sweep_->queue.empty() && in_flight_ < std::max<uint32_t>(1, options_.max_outstanding_queries))
      return clock_.now();
    return std::nullopt;  // the answers wake the caller
  }
  return next_sweep_ ? *next_sweep_ : clock_.now();
}

// Every node of the subnet with the ports to read: a switch's ports 1..N at
// its port 0's LID, a CA's ports that have a LID (IBA 16.1.3.5: PortSelect
// names the port on the node the PMA is on).
void PerfManager::start(Micros now, std::shared_ptr<const SubnetSnapshot> subnet) {
  ++generation_;
  sweep_ = std::make_unique<Sweep>();
  sweep_->subnet = std::move(subnet);
  sweep_->start = now;
  stats_.last_start = now;
  next_sweep_ = now + Micros{options_.sweep_time_s} * kMicrosPerSecond;
  const Fabric& f = sweep_->subnet->fabric;
  std::map<std::pair<Guid, uint8_t>, bool> present;
  for (uint32_t i = 0; i < f.node_count(); ++i) {
    const Node& n = f.node(NodeIndex{i});
    NodeTarget t;
    t.guid = n.node_guid;
    t.description = n.description.empty() ? n.name : n.description;
    t.is_switch = n.is_switch();
    if (n.is_switch()) {
      t.cpi_lid = n.port(0).base_lid;
      if (t.cpi_lid.value == 0) continue;
      for (uint8_t p = 1; p <= n.num_ports; ++p) t.ports.emplace_back(p, t.cpi_lid);
    } else {
      if (options_.ignore_cas) continue;
      for (uint8_t p = 1; p <= n.num_ports; ++p) {
        const Lid lid = n.port(p).base_lid;
        if (lid.value == 0) continue;
        if (t.cpi_lid.value == 0) t.cpi_lid = lid;
        t.ports.emplace_back(p, lid);
      }
      if (t.ports.empty()) continue;
    }
    for (const auto& [p, lid] : t.ports) present[{t.guid, p}] = true;
    sweep_->nodes.push_back(std::move(t));
  }
  if (options_.rm_nodes)
    std::erase_if(ports_, [&](const auto& kv) { return !present.count(kv.first); });
  for (size_t i = 0; i < sweep_->nodes.size(); ++i) {
    NodeTarget& t = sweep_->nodes[i];
    auto known = capability_.find(t.guid);
    if (options_.query_cpi && known == capability_.end()) {
      sweep_->queue.push_back(Task{Task::Kind::class_port_info, i, 0, t.cpi_lid, 0});
    } else {
      t.capability = known == capability_.end() ? uint16_t{0} : known->second;
      queue_ports(i);
    }
  }
  log(log_, LogLevel::debug, Subsystem::perfmgr, "pma sweep {} of {} nodes started", stats_.sweeps + 1,
      sweep_->nodes.size());
}

void PerfManager::queue_ports(size_t node) {
  const NodeTarget& t = sweep_->nodes[node];
  for (const auto& [p, lid] : t.ports) sweep_->queue.push_back(Task{Task::Kind::counters, node, p, lid, 0});
}

void PerfManager::submit(const Task& task) {
  MadPacket packet;
  const bool clear = task.kind == Task::Kind::clear;
  const uint16_t attr = task.kind == Task::Kind::class_port_info ? wire::perf_attr::class_port_info
                        : task.kind == Task::Kind::extended      ? wire::perf_attr::port_counters_extended
                                                                 : wire::perf_attr::port_counters;
  packet.data = wire::build_perf_mad(clear ? wire::method::set : wire::method::get, attr);
  if (task.kind != Task::Kind::class_port_info) {
    // PortSelect and CounterSelect sit at the same place in both attributes.
    auto data = wire::perf_data(packet.data);
    wire::set_field(data, wire::port_counters_fields::port_select, task.port);
    wire::set_field(data, wire::port_counters_fields::counter_select, task.select);
  }
  packet.address.lid = task.lid;
  packet.address.qp = 1;
  packet.address.qkey = wire::qp1_qkey;
  RequestOptions once;
  once.retries = kQueryRetries;
  ++in_flight_;
  ++stats_.queries;
  if (clear) ++stats_.clears;
  stats_.max_in_flight = std::max(stats_.max_in_flight, in_flight_);
  const uint64_t gen = generation_;
  dispatcher_.submit(
      packet,
      [this, gen, task](Result<MadPacket> r) {
        answered(r);
        if (gen != generation_ || !sweep_) return;
        switch (task.kind) {
          case Task::Kind::class_port_info: on_class_port_info(task.node, std::move(r)); break;
          case Task::Kind::counters: on_counters(task.node, task.port, std::move(r)); break;
          case Task::Kind::extended: on_extended(task.node, task.port, std::move(r)); break;
          case Task::Kind::clear: on_cleared(task.node, task.port, task.select, std::move(r)); break;
        }
        maybe_finish();
      },
      once);
}

// Counts the answer; a PerfMgt error status counts as no answer.
void PerfManager::answered(Result<MadPacket>& answer) {
  --in_flight_;
  if (answer.ok() && mad_status_of(*answer) != wire::mad_status::ok)
    answer = unavailable_error(fmt::format("pma status 0x{:04x}", mad_status_of(*answer)));
  if (answer.ok()) {
    ++stats_.answered;
  } else {
    ++stats_.unanswered;
  }
}

PortPerf& PerfManager::entry(const NodeTarget& node, uint8_t port) {
  PortPerf& e = ports_[{node.guid, port}];
  e.node_guid = node.guid;
  e.node_description = node.description;
  e.port = port;
  e.is_switch = node.is_switch;
  for (const auto& [p, lid] : node.ports)
    if (p == port) e.lid = lid;
  return e;
}

void PerfManager::port_unanswered(const NodeTarget& node, uint8_t port) {
  PortPerf& e = entry(node, port);
  ++e.unanswered;
  e.answered_last = false;
  ++sweep_->unresponsive_ports;
}

void PerfManager::on_class_port_info(size_t node, Result<MadPacket> answer) {
  NodeTarget& t = sweep_->nodes[node];
  if (!answer.ok()) {
    log(log_, LogLevel::debug, Subsystem::perfmgr, "node {} \"{}\" (lid {}): no pma classportinfo: {}", t.guid,
        t.description, t.cpi_lid, answer.status().message());
    for (const auto& [p, lid] : t.ports) port_unanswered(t, p);
    return;
  }
  auto cpi = wire::decode_class_port_info(wire::perf_data(answer->data));
  t.capability = cpi.ok() ? cpi->capability_mask : uint16_t{0};
  capability_[t.guid] = t.capability;
  queue_ports(node);
}

void PerfManager::on_counters(size_t node, uint8_t port, Result<MadPacket> answer) {
  const NodeTarget& t = sweep_->nodes[node];
  if (!answer.ok()) {
    log(log_, LogLevel::debug, Subsystem::perfmgr, "node {} \"{}\" port {}: no portcounters: {}", t.guid,
        t.description, port, answer.status().message());
    return port_unanswered(t, port);
  }
  const auto data = wire::perf_data(answer->data);
  PortPerf& e = entry(t, port);
  const bool first = e.readings == 0;
  e.extended = (t.capability & (wire::perf_cap::extended_width | wire::perf_cap::extended_width_no_ietf)) != 0;
  uint16_t clear = 0;
  // One reading of a group of counters: the deltas since the last, the
  // totals, the new base, and the near-saturated ones to clear.
  auto take = [&](const auto& counters, auto& deltas, auto& totals, auto& raws) {
    for (size_t i = 0; i < counters.size(); ++i) {
      const auto& c = counters[i];
      const uint64_t raw = wire::get_field(data, c.field);
      deltas[i] = first ? 0 : delta(raw, raws[i]);
      totals[i] = first ? raw : totals[i] + deltas[i];
      raws[i] = raw;
      if (near_max(c, raw)) clear |= c.select;
    }
  };
  take(wire::port_error_counters, e.error_deltas, e.errors, e.raw_errors);
  if (!e.extended) take(wire::port_data_counters, e.data_deltas, e.data, e.raw_data);
  if (log_.enabled(LogLevel::debug, Subsystem::perfmgr)) {
    // What the PMA answered, named as perfquery prints it: the judge of the e2e test.
    std::string read;
    for (size_t i = 0; i < wire::port_error_counters.size(); ++i)
      if (const uint64_t v = wire::get_field(data, wire::port_error_counters[i].field); v != 0)
        read += fmt::format("{} {}, ", kErrorNames[i], v);
    namespace f = wire::port_counters_fields;
    log(log_, LogLevel::debug, Subsystem::perfmgr,
        "portcounters of node {} \"{}\" port {} (lid {}): {}PortXmitData {}, PortRcvData {}, PortXmitPkts {}, "
        "PortRcvPkts {}",
        t.guid, t.description, port, e.lid, read, wire::get_field(data, f::xmit_data),
        wire::get_field(data, f::rcv_data), wire::get_field(data, f::xmit_pkts), wire::get_field(data, f::rcv_pkts));
  }
  const Micros now = clock_.now();
  e.previous_read = e.last_read;
  e.last_read = now;
  ++e.readings;
  e.answered_last = true;
  ++sweep_->ports_read;
  if (e.extended) sweep_->queue.push_back(Task{Task::Kind::extended, node, port, e.lid, 0});
  if (clear != 0) sweep_->queue.push_back(Task{Task::Kind::clear, node, port, e.lid, clear});
  if (e.error_delta() == 0) return;
  PortErrorReport report{e.node_guid, e.node_description, port, e.lid, e.error_deltas};
  if (options_.log_errors) {
    std::string what;
    for (size_t i = 0; i < e.error_deltas.size(); ++i)
      if (e.error_deltas[i] != 0)
        what += fmt::format("{}{} +{} (total {})", what.empty() ? "" : ", ", kErrorNames[i], e.error_deltas[i],
                            e.errors[i]);
    log(log_, LogLevel::warn, Subsystem::perfmgr, "errors on node {} \"{}\" port {} (lid {}): {}", e.node_guid,
        e.node_description, port, e.lid, what);
  }
  sweep_->errors.push_back(std::move(report));
}

void PerfManager::on_extended(size_t node, uint8_t port, Result<MadPacket> answer) {
  const NodeTarget& t = sweep_->nodes[node];
  if (!answer.ok()) return;  // the basic reading stands; data waits for the next sweep
  auto x = wire::decode_port_counters_extended(wire::perf_data(answer->data));
  if (!x.ok()) return;
  PortPerf& e = entry(t, port);
  const std::array<uint64_t, wire::port_data_counter_count> raw{x->xmit_data, x->rcv_data, x->xmit_pkts,
                                                                x->rcv_pkts};
  const bool first = e.extended_readings++ == 0;
  for (size_t i = 0; i < raw.size(); ++i) {
    e.data_deltas[i] = first ? 0 : raw[i] - e.raw_data[i];  // 64 bits: they wrap, never saturate
    e.data[i] = first ? raw[i] : e.data[i] + e.data_deltas[i];
    e.raw_data[i] = raw[i];
  }
}

// The Set's answer holds the counters as they are after the clear: counting
// goes on from there.
void PerfManager::on_cleared(size_t node, uint8_t port, uint16_t select, Result<MadPacket> answer) {
  const NodeTarget& t = sweep_->nodes[node];
  if (!answer.ok()) {
    log(log_, LogLevel::info, Subsystem::perfmgr, "node {} \"{}\" port {}: clearing counters failed: {}", t.guid,
        t.description, port, answer.status().message());
    return;
  }
  const auto data = wire::perf_data(answer->data);
  PortPerf& e = entry(t, port);
  ++e.clears;
  for (size_t i = 0; i < wire::port_error_counters.size(); ++i)
    if (select & wire::port_error_counters[i].select) e.raw_errors[i] = wire::get_field(data, wire::port_error_counters[i].field);
  if (!e.extended)
    for (size_t i = 0; i < wire::port_data_counters.size(); ++i)
      if (select & wire::port_data_counters[i].select) e.raw_data[i] = wire::get_field(data, wire::port_data_counters[i].field);
}

void PerfManager::maybe_finish() {
  if (sweep_ && sweep_->queue.empty() && in_flight_ == 0) finish(clock_.now());
}

void PerfManager::finish(Micros now) {
  ++stats_.sweeps;
  stats_.last_duration = now - sweep_->start;
  stats_.unresponsive_ports = sweep_->unresponsive_ports;
  error_ports_ = std::move(sweep_->errors);
  log(log_, LogLevel::info, Subsystem::perfmgr,
      "pma sweep {}: {} ports of {} nodes read, {} unanswered, {} with new errors, {} ms", stats_.sweeps,
      sweep_->ports_read, sweep_->nodes.size(), sweep_->unresponsive_ports, error_ports_.size(),
      stats_.last_duration / 1000);
  sweep_.reset();
}

}  // namespace ibsm
