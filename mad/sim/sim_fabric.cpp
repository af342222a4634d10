#include "mad/sim/sim_fabric.h"

#include <algorithm>

#include "mad/sim/sim_routing.h"
#include "mad/sim/sim_travel.h"
#include "mad/sim/sma.h"
#include "mad/sim/sma_m_key.h"
#include "mad/wire/constants.h"
#include "mad/wire/mad_header.h"
#include "mad/wire/response.h"
#include "mad/wire/smp.h"

namespace ibsm {

using sim::Arrival;
using sim::Traffic;

namespace {

bool is_smp_class(uint8_t c) {
  return c == wire::mgmt_class::subn_lid_routed || c == wire::mgmt_class::subn_directed_route;
}

}  // namespace

SimFabric::SimFabric(Fabric topology, SimOptions options, LogSink& log)
    : state_(std::move(topology), options), log_(log) {}

SimFabric::~SimFabric() = default;

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
  if (t.mgmt_class == wire::mgmt_class::perf_mgt && t.request) return answer_at_pma(a.node, a.port, t);
  if (!deliver(a.node, a.port, t, t.latency)) drop(DropReason::no_client, t);
}

// A PerfMgt request reached the PMA of `node` (IBA 16.1): answered there,
// LID-routed back to the requester from the port it came in by (a switch's
// port 0). Unresponsive nodes answer nothing, as their SMA.
void SimFabric::answer_at_pma(uint32_t node, uint8_t in_port, Travel& t) {
  if (faults_.unresponsive(node)) return drop(DropReason::unresponsive, t);
  if (!wire::response_method(t.method)) return drop(DropReason::no_response_method, t);
  ++counters_.pma_requests;
  wire::MadBuffer response = wire::make_response(t.mad);
  uint16_t status = wire::mad_status::bad_version;
  if (t.mad[2] == wire::perf_class_version) {
    auto request_data = std::span<const uint8_t>(t.mad).subspan(wire::perf_data_offset);
    auto response_data = std::span<uint8_t>(response).subspan(wire::perf_data_offset);
    std::fill(response_data.begin(), response_data.end(), uint8_t{0});
    status = pma_.process(state_, node, t.method, t.attr_id, request_data, response_data);
  }
  wire::set_field(response, wire::mad_fields::status, status);
  ++counters_.responses_sent;
  t.mad = response;
  t.method = t.mad[3];
  t.latency += state_.options().sma_latency;
  const sim::Arrival a = sim::route_lid(state_, node, in_port, t.slid, Traffic::data, false);
  t.slid = state_.port(node, in_port).lid;
  if (!a.ok) return drop(a.reason, t);
  t.latency += a.hops * state_.options().hop_latency;
  if (!deliver(a.node, a.port, t, t.latency)) drop(DropReason::no_client, t);
}

Status SimFabric::add_port_errors(PortRef port, const wire::Field& counter, uint64_t amount) {
  if (port.node.value >= state_.node_count() || port.port > state_.node(port.node.value).num_ports)
    return invalid_argument_error(fmt::format("add_port_errors: no port {} on node {}", port.port, port.node.value));
  pma_.add(state_, port.node.value, port.port, counter, amount);
  return {};
}

Status SimFabric::add_port_traffic(PortRef port, uint64_t xmit_words, uint64_t rcv_words, uint64_t xmit_pkts,
                                   uint64_t rcv_pkts) {
  if (port.node.value >= state_.node_count() || port.port > state_.node(port.node.value).num_ports)
    return invalid_argument_error(fmt::format("add_port_traffic: no port {} on node {}", port.port, port.node.value));
  pma_.add_traffic(state_, port.node.value, port.port, xmit_words, rcv_words, xmit_pkts, rcv_pkts);
  return {};
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
  // The M_Key check comes before anything is read or written (IBA 14.2.4).
  const sim::MKeyVerdict verdict = sim::check_m_key(state_, node, in_port, t.method,
                                                    wire::get_field(t.mad, wire::smp_fields::m_key), clock_.now());
  if (verdict == sim::MKeyVerdict::refuse) {
    send_trap256(node, in_port, t);
    return drop(DropReason::m_key, t);
  }
  ++counters_.sma_requests;
  ++counters_.sma_requests_by_kind[SimCounters::kind_key(t.mgmt_class, t.method, t.attr_id)];

  // The answer is the request turned around in place (the handlers read a
  // Set's data and write the answer over it), not a copy of it.
  const uint8_t class_version = t.mad[2];
  sim::SmaRequest request;
  request.m_key_hidden = verdict == sim::MKeyVerdict::pass_hidden;
  request.node = node;
  request.in_port = in_port;
  request.method = t.method;
  request.attr_id = t.attr_id;
  request.attr_mod = static_cast<uint32_t>(wire::get_field(t.mad, wire::mad_fields::attribute_modifier));
  wire::make_response_in_place(t.mad);
  uint16_t status = wire::mad_status::bad_version;
  if (class_version == wire::smp_class_version) status = sim::sma_process(state_, request, wire::smp_data(t.mad));
  if (t.directed) {
    wire::set_field(t.mad, wire::smp_fields::dr_status, status);
  } else {
    wire::set_field(t.mad, wire::mad_fields::status, status);
  }
  ++counters_.responses_sent;
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
  const Micros due = clock_.now() + latency;
  MadPacket& packet = client->push_inbox(due, next_seq_++);
  packet.data = t.mad;
  packet.address = MadAddress{};
  packet.address.lid = Lid{t.directed ? wire::permissive_lid : t.slid};
  packet.address.qp = t.src_qp;
  packet.address.qkey = t.qkey;
  packet.address.sl = t.sl;
  packet.address.pkey_index = t.pkey_index;
  packet.response_timeout_ms = 0;
  packet.send_timed_out = false;
  wakeups_.push(due);
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
  const Micros due = clock_.now() + Micros{t.original->response_timeout_ms} * 1000;
  MadPacket& packet = t.sender->push_inbox(due, next_seq_++);
  packet = *t.original;
  packet.send_timed_out = true;
  wakeups_.push(due);
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
