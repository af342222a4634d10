#include "mad/sim/sim_fabric.h"

#include <algorithm>
#include <cassert>

#include "mad/sim/sim_routing.h"
#include "mad/sim/sma.h"
#include "mad/wire/constants.h"
#include "mad/wire/mad_header.h"
#include "mad/wire/notice.h"
#include "mad/wire/response.h"
#include "mad/wire/smp.h"

namespace ibsm {

using sim::Arrival;
using sim::Traffic;

// A MAD on its way through the fabric, with what its answer needs.
struct SimFabric::Travel {
  wire::MadBuffer mad{};
  SimPort* sender = nullptr;            // the client that sent it; none for a trap
  const MadPacket* original = nullptr;  // as sent, to hand back when it times out
  uint8_t mgmt_class = 0;
  uint8_t method = 0;
  uint16_t attr_id = 0;
  bool directed = false;
  bool local = false;    // LID-routed to the permissive LID: the sender's own SMA
  bool request = false;  // the sender waits for an answer
  uint16_t slid = 0;     // LID-routed: the source port's LID (where an answer goes)
  uint32_t src_qp = 0;
  uint32_t qkey = 0;
  uint8_t sl = 0;
  uint16_t pkey_index = 0;
  Micros latency = 0;
};

namespace {

bool is_smp_class(uint8_t c) {
  return c == wire::mgmt_class::subn_lid_routed || c == wire::mgmt_class::subn_directed_route;
}

}  // namespace

SimFabric::SimFabric(Fabric topology, SimOptions options, LogSink& log)
    : state_(std::move(topology), options), log_(log) {}

SimFabric::~SimFabric() = default;

SimPort& SimFabric::attach(NodeIndex node, uint8_t port) {
  assert(node.value < state_.node_count());
  const sim::NodeRecord& n = state_.node(node.value);
  assert(n.is_switch() ? port == 0 : (port >= 1 && port <= n.num_ports));
  const uint32_t index = state_.port_index(node.value, port);
  assert(client_by_port_.count(index) == 0 && "one client per port");
  (void)n;
  clients_.push_back(std::unique_ptr<SimPort>(new SimPort(*this, node.value, port)));
  client_by_port_[index] = clients_.back().get();
  return *clients_.back();
}

SimPort* SimFabric::client_at(uint32_t node, uint8_t port) const {
  if (client_by_port_.empty()) return nullptr;
  const uint8_t p = state_.node(node).is_switch() ? uint8_t{0} : port;
  auto it = client_by_port_.find(state_.port_index(node, p));
  return it == client_by_port_.end() ? nullptr : it->second;
}

std::optional<Micros> SimFabric::next_delivery() const {
  std::optional<Micros> next;
  for (const auto& c : clients_) {
    auto due = c->next_due();
    if (due && (!next || *due < *next)) next = due;
  }
  return next;
}

void SimFabric::wait_for(const SimPort& client, Micros max_wait) {
  const Micros now = clock_.now();
  if (auto due = client.next_due(); due && *due <= now) return;
  while (!wakeups_.empty() && wakeups_.top() <= now) wakeups_.pop();
  Micros target = now + std::max<Micros>(max_wait, 0);
  if (!wakeups_.empty() && wakeups_.top() < target) target = wakeups_.top();
  clock_.set(target);
}

Status SimFabric::send_from(SimPort& from, const MadPacket& packet) {
  ++counters_.mads_in;
  Travel t;
  t.mad = packet.data;
  t.sender = &from;
  t.original = &packet;
  t.mgmt_class = t.mad[1];
  t.method = t.mad[3];
  t.attr_id = static_cast<uint16_t>(wire::get_field(t.mad, wire::mad_fields::attribute_id));
  t.directed = t.mgmt_class == wire::mgmt_class::subn_directed_route;
  t.request = wire::response_method(t.method).has_value() && t.method != wire::method::trap;
  t.slid = state_.port(from.node_, from.port_).lid;
  t.qkey = packet.address.qkey;
  t.sl = packet.address.sl;
  t.pkey_index = packet.address.pkey_index;
  ++counters_.received_by_kind[SimCounters::kind_key(t.mgmt_class, t.method, t.attr_id)];

  if (t.mad[0] != wire::mad_base_version) {
    drop(DropReason::malformed, t);
  } else if (is_smp_class(t.mgmt_class)) {
    route_smp(from, t);
  } else {
    t.src_qp = 1;
    route_gmp(from, t);
  }
  return {};
}

void SimFabric::route_smp(SimPort& from, Travel& t) {
  const bool strict = state_.options().lid_routed_smps_need_active;
  Arrival a;
  bool returning = false;
  if (t.directed) {
    returning = wire::get_field(t.mad, wire::smp_fields::direction) != 0;
    a = returning ? sim::route_dr_return(state_, faults_, from.node_, from.port_, t.mad)
                  : sim::route_dr_outbound(state_, faults_, from.node_, from.port_, t.mad);
  } else {
    const uint16_t dlid = t.original->address.lid.value;
    if (dlid == wire::permissive_lid) {
      // ibsim hands a LID-routed SMP to the permissive LID to the sender's own SMA.
      t.local = true;
      a.ok = true;
      a.node = from.node_;
      a.port = from.port_;
    } else {
      a = sim::route_lid(state_, from.node_, from.port_, dlid, Traffic::smp, strict);
    }
  }
  if (!a.ok) return drop(a.reason, t);
  t.latency += a.hops * state_.options().hop_latency;
  if (returning) {
    if (!deliver(a.node, a.port, t, t.latency)) drop(DropReason::no_client, t);
    return;
  }
  arrive_at_node(a.node, a.port, t);
}

void SimFabric::route_gmp(SimPort& from, Travel& t) {
  const Arrival a =
      sim::route_lid(state_, from.node_, from.port_, t.original->address.lid.value, Traffic::data, false);
  if (!a.ok) return drop(a.reason, t);
  t.latency += a.hops * state_.options().hop_latency;
  if (!deliver(a.node, a.port, t, t.latency)) drop(DropReason::no_client, t);
}

// An SMP reached the SMI of `node` by `in_port`: responses and the SM's
// business (SMInfo, traps) go to the client there; the rest to the SMA.
void SimFabric::arrive_at_node(uint32_t node, uint8_t in_port, Travel& t) {
  if (wire::is_response_method(t.method) || t.method == wire::method::trap_repress) {
    if (deliver(node, in_port, t, t.latency)) return;
    if (t.method == wire::method::trap_repress) {
      ++counters_.sma_requests;  // a switch's SMA takes note that its trap arrived
      ++counters_.sma_requests_by_kind[SimCounters::kind_key(t.mgmt_class, t.method, t.attr_id)];
      return;
    }
    return drop(DropReason::stray_response, t);
  }
  if (t.attr_id == wire::smp_attr::sm_info || t.method == wire::method::trap) {
    if (!deliver(node, in_port, t, t.latency)) drop(DropReason::no_client, t);
    return;
  }
  answer_at_sma(node, in_port, t);
}

void SimFabric::answer_at_sma(uint32_t node, uint8_t in_port, Travel& t) {
  if (faults_.unresponsive(node)) return drop(DropReason::unresponsive, t);
  if (faults_.drop_answer(node, t.attr_id)) return drop(DropReason::injected, t);
  if (!wire::response_method(t.method)) return drop(DropReason::no_response_method, t);
  ++counters_.sma_requests;
  ++counters_.sma_requests_by_kind[SimCounters::kind_key(t.mgmt_class, t.method, t.attr_id)];

  wire::MadBuffer response = wire::make_response(t.mad);
  uint16_t status = wire::mad_status::bad_version;
  if (t.mad[2] == wire::smp_class_version) {
    sim::SmaRequest request;
    request.node = node;
    request.in_port = in_port;
    request.method = t.method;
    request.attr_id = t.attr_id;
    request.attr_mod = static_cast<uint32_t>(wire::get_field(t.mad, wire::mad_fields::attribute_modifier));
    status = sim::sma_process(state_, request, wire::smp_data(response));
  }
  if (t.directed) {
    wire::set_field(response, wire::smp_fields::dr_status, status);
  } else {
    wire::set_field(response, wire::mad_fields::status, status);
  }
  ++counters_.responses_sent;
  t.mad = response;
  t.method = t.mad[3];
  t.latency += state_.options().sma_latency;

  // Back to the requester: along the return path, or LID-routed to its LID
  // from the port that answered (a switch answers from port 0).
  const uint8_t from_port = state_.node(node).is_switch() ? uint8_t{0} : in_port;
  Arrival a;
  if (t.directed) {
    a = sim::route_dr_return(state_, faults_, node, in_port, t.mad);
  } else if (t.local) {
    a.ok = true;
    a.node = node;
    a.port = from_port;
  } else {
    a = sim::route_lid(state_, node, from_port, t.slid, Traffic::smp, state_.options().lid_routed_smps_need_active);
    t.slid = state_.port(node, from_port).lid;
  }
  if (!a.ok) return drop(a.reason, t);
  t.latency += a.hops * state_.options().hop_latency;
  if (!deliver(a.node, a.port, t, t.latency)) drop(DropReason::no_client, t);
}

bool SimFabric::deliver(uint32_t node, uint8_t port, Travel& t, Micros latency) {
  SimPort* client = client_at(node, port);
  if (client == nullptr) return false;
  SimPort::Delivery d;
  d.due = clock_.now() + latency;
  d.seq = next_seq_++;
  d.packet.data = t.mad;
  d.packet.address.lid = Lid{t.directed ? wire::permissive_lid : t.slid};
  d.packet.address.qp = t.src_qp;
  d.packet.address.qkey = t.qkey;
  d.packet.address.sl = t.sl;
  d.packet.address.pkey_index = t.pkey_index;
  wakeups_.push(d.due);
  client->inbox_.push(std::move(d));
  ++counters_.delivered;
  return true;
}

void SimFabric::drop(DropReason reason, const Travel& t) {
  ++counters_.dropped[static_cast<size_t>(reason)];
  log(log_, LogLevel::debug, Subsystem::sim, "dropped mad class 0x{:02x} method 0x{:02x} attr 0x{:04x}: {}",
      t.mgmt_class, t.method, t.attr_id, drop_reason_name(reason));
  if (!state_.options().report_send_timeouts || !t.request || t.sender == nullptr || t.original == nullptr ||
      t.original->response_timeout_ms == 0)
    return;
  // The kernel hands an unanswered request back once its timeout expires.
  SimPort::Delivery d;
  d.due = clock_.now() + Micros{t.original->response_timeout_ms} * 1000;
  d.seq = next_seq_++;
  d.packet = *t.original;
  d.packet.send_timed_out = true;
  wakeups_.push(d.due);
  t.sender->inbox_.push(std::move(d));
  ++counters_.send_timeouts;
}

Status SimFabric::set_link(PortRef ref, bool up) {
  if (ref.node.value >= state_.node_count() || ref.port == 0 || ref.port > state_.node(ref.node.value).num_ports)
    return invalid_argument_error(fmt::format("no port {} on node {}", ref.port, ref.node.value));
  sim::PortRecord& a = state_.port(ref.node.value, ref.port);
  if (!a.cabled())
    return failed_precondition_error(fmt::format("port {} of node {} has no cable", ref.port, ref.node.value));
  sim::PortRecord& b = state_.port(a.peer_node, a.peer_port);
  a.set(sim::port_flag::unplugged, !up);
  b.set(sim::port_flag::unplugged, !up);
  if (!up) {
    state_.link_down(ref.node.value, ref.port, sim::LinkCause::fault);
  } else if (!a.link_up() && state_.can_train(ref.node.value, ref.port)) {
    state_.link_up(ref.node.value, ref.port, sim::LinkCause::fault);
  }
  send_traps();
  return {};
}

// Trap 128 (IBA 14.2.5.1): a switch whose port changed state tells its master
// SM, LID-routed from port 0, if it has a LID and knows the SM's.
void SimFabric::send_traps() {
  for (uint32_t node : state_.take_trap_sources()) {
    const sim::PortRecord& p0 = state_.port(node, 0);
    if (p0.lid == 0 || p0.master_sm_lid == 0) continue;
    Travel t;
    t.mgmt_class = wire::mgmt_class::subn_lid_routed;
    t.method = wire::method::trap;
    t.attr_id = wire::smp_attr::notice;
    t.slid = p0.lid;
    wire::Smp smp;
    smp.mgmt_class = t.mgmt_class;
    smp.method = t.method;
    smp.attr_id = t.attr_id;
    smp.tid = next_trap_tid_++;
    wire::Notice notice;
    notice.is_generic = true;
    notice.type = wire::notice_type::urgent;
    notice.producer_type = wire::producer_type::switch_;
    notice.trap_number = wire::trap_number::link_state_change;
    notice.issuer_lid = Lid{p0.lid};
    wire::encode(notice, smp.data);
    wire::set_field(smp.data, wire::notice_fields::trap128_lid, p0.lid);
    wire::encode(smp, t.mad);
    ++counters_.traps_sent;
    const Arrival a = sim::route_lid(state_, node, 0, p0.master_sm_lid, Traffic::smp,
                                     state_.options().lid_routed_smps_need_active);
    if (!a.ok) {
      drop(a.reason, t);
      continue;
    }
    if (!deliver(a.node, a.port, t, a.hops * state_.options().hop_latency)) drop(DropReason::no_client, t);
  }
}

Status SimFabric::set_port_lid(PortRef port, Lid lid) {
  if (port.node.value >= state_.node_count()) return invalid_argument_error("set_port_lid: no such node");
  const Node& n = state_.topo_node(port.node.value);
  if (port.port > n.num_ports || (n.is_switch() ? port.port != 0 : port.port == 0))
    return invalid_argument_error(fmt::format("set_port_lid: port {} of {} carries no lid", port.port, n.name));
  state_.port(port.node.value, port.port).lid = lid.value;
  return {};
}

void SimFabric::set_drop_rate(NodeIndex node, double fraction, uint64_t seed) {
  faults_.set_drop_rate(node.value, fraction, seed);
}
void SimFabric::set_drop_rate_all(double fraction, uint64_t seed) { faults_.set_drop_rate_all(fraction, seed); }
void SimFabric::set_drop_attribute(NodeIndex node, uint16_t attr_id, bool drop) {
  faults_.set_drop_attribute(node.value, attr_id, drop);
}
void SimFabric::set_unresponsive(NodeIndex node, bool unresponsive) { faults_.set_unresponsive(node.value, unresponsive); }

}  // namespace ibsm
