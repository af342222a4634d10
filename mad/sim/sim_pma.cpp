#include "mad/sim/sim_pma.h"

#include <algorithm>

#include "mad/wire/class_port_info.h"
#include "mad/wire/constants.h"

namespace ibsm::sim {
namespace {

using wire::PortCounterSpec;

// Every counter of PortCounters, errors, data and PortXmitWait (the one
// CounterSelect2 bit 0 clears, select 0 here).
constexpr std::array<PortCounterSpec, 17> all_basic_counters() {
  std::array<PortCounterSpec, 17> all{};
  size_t i = 0;
  for (const auto& c : wire::port_error_counters) all[i++] = c;
  for (const auto& c : wire::port_data_counters) all[i++] = c;
  all[i++] = PortCounterSpec{wire::port_counters_fields::xmit_wait, 0};
  return all;
}
constexpr auto kBasicCounters = all_basic_counters();

void saturating_add(std::span<uint8_t> data, const wire::Field& f, uint64_t amount) {
  const uint64_t max = PortCounterSpec{f, 0}.max();
  const uint64_t now = wire::get_field(data, f);
  wire::set_field(data, f, amount >= max - now ? max : now + amount);
}

bool valid_port_select(const SimState& state, uint32_t node, uint8_t port_select) {
  const Node& n = state.topo_node(node);
  if (port_select == wire::perf_all_ports) return true;
  return port_select <= n.num_ports && (n.is_switch() || port_select >= 1);
}

// The ports PortSelect names.
std::pair<uint8_t, uint8_t> selected_ports(const SimState& state, uint32_t node, uint8_t port_select) {
  const Node& n = state.topo_node(node);
  if (port_select != wire::perf_all_ports) return {port_select, port_select};
  return {n.is_switch() ? uint8_t{0} : uint8_t{1}, n.num_ports};
}

// The 64-bit counters of PortCountersExtended, each with its CounterSelect bit.
template <typename Fn>
void for_each_extended(wire::PortCountersExtended& x, Fn&& fn) {
  uint64_t* members[] = {&x.xmit_data,         &x.rcv_data,         &x.xmit_pkts,           &x.rcv_pkts,
                         &x.unicast_xmit_pkts, &x.unicast_rcv_pkts, &x.multicast_xmit_pkts, &x.multicast_rcv_pkts};
  for (size_t i = 0; i < 8; ++i) fn(*members[i], uint16_t(1u << i));
}

}  // namespace

const SimPma::PortPma* SimPma::find(const SimState& state, uint32_t node, uint8_t port) const {
  auto it = ports_.find(state.port_index(node, port));
  return it == ports_.end() ? nullptr : &it->second;
}

uint16_t SimPma::process(const SimState& state, uint32_t node, uint8_t method, uint16_t attr_id,
                         std::span<const uint8_t> request, std::span<uint8_t> response) {
  if (method != wire::method::get && method != wire::method::set) return wire::mad_status::method_unsupported;
  switch (attr_id) {
    case wire::perf_attr::class_port_info: {
      if (method != wire::method::get) return wire::mad_status::method_attr_unsupported;
      wire::ClassPortInfo cpi;
      cpi.class_version = wire::perf_class_version;
      cpi.capability_mask = pma_capability_mask;
      cpi.resp_time_value = 18;  // 4.096 us * 2^18, about 1 s (IBA 13.4.6.2)
      wire::encode(cpi, response);
      return wire::mad_status::ok;
    }
    case wire::perf_attr::port_counters: return port_counters(state, node, method, request, response);
    case wire::perf_attr::port_counters_extended:
      return port_counters_extended(state, node, method, request, response);
    default: return wire::mad_status::method_attr_unsupported;
  }
}

uint16_t SimPma::port_counters(const SimState& state, uint32_t node, uint8_t method,
                               std::span<const uint8_t> request, std::span<uint8_t> response) {
  auto asked = wire::decode_port_counters(request);
  if (!asked.ok() || !valid_port_select(state, node, asked->port_select)) return wire::mad_status::invalid_field;
  const auto [first, last] = selected_ports(state, node, asked->port_select);
  if (method == wire::method::set) {
    // A Set writes the selected counters with the request's values (0 to
    // clear, IBA 16.1.3.5), on every port selected.
    for (unsigned p = first; p <= last; ++p) {
      PortPma& pma = at(state, node, static_cast<uint8_t>(p));
      for (const auto& c : kBasicCounters) {
        const bool selected = c.select != 0 ? (asked->counter_select & c.select) != 0 : (asked->counter_select2 & 1) != 0;
        if (selected) wire::set_field(pma.basic, c.field, wire::get_field(request, c.field));
      }
    }
  }
  std::array<uint8_t, wire::port_counters_size> sum{};
  for (unsigned p = first; p <= last; ++p)
    if (const PortPma* pma = find(state, node, static_cast<uint8_t>(p)))
      for (const auto& c : kBasicCounters) saturating_add(sum, c.field, wire::get_field(pma->basic, c.field));
  wire::set_field(sum, wire::port_counters_fields::port_select, asked->port_select);
  wire::set_field(sum, wire::port_counters_fields::counter_select, asked->counter_select);
  wire::set_field(sum, wire::port_counters_fields::counter_select2, asked->counter_select2);
  std::copy(sum.begin(), sum.end(), response.begin());
  return wire::mad_status::ok;
}

uint16_t SimPma::port_counters_extended(const SimState& state, uint32_t node, uint8_t method,
                                        std::span<const uint8_t> request, std::span<uint8_t> response) {
  auto asked = wire::decode_port_counters_extended(request);
  if (!asked.ok() || !valid_port_select(state, node, asked->port_select)) return wire::mad_status::invalid_field;
  const auto [first, last] = selected_ports(state, node, asked->port_select);
  wire::PortCountersExtended value = *asked;
  if (method == wire::method::set) {
    for (unsigned p = first; p <= last; ++p) {
      PortPma& pma = at(state, node, static_cast<uint8_t>(p));
      wire::PortCountersExtended given = *asked;
      std::array<uint64_t, 8> values{};
      size_t i = 0;
      for_each_extended(given, [&](uint64_t& v, uint16_t) { values[i++] = v; });
      i = 0;
      for_each_extended(pma.extended, [&](uint64_t& v, uint16_t bit) {
        if (asked->counter_select & bit) v = values[i];
        ++i;
      });
    }
  }
  std::array<uint64_t, 8> total{};
  for (unsigned p = first; p <= last; ++p) {
    const PortPma* pma = find(state, node, static_cast<uint8_t>(p));
    if (!pma) continue;
    wire::PortCountersExtended x = pma->extended;
    size_t i = 0;
    for_each_extended(x, [&](uint64_t& v, uint16_t) { total[i++] += v; });
  }
  size_t i = 0;
  for_each_extended(value, [&](uint64_t& v, uint16_t) { v = total[i++]; });
  wire::encode(value, response);
  return wire::mad_status::ok;
}

void SimPma::add(const SimState& state, uint32_t node, uint8_t port, const wire::Field& counter, uint64_t amount) {
  saturating_add(at(state, node, port).basic, counter, amount);
}

void SimPma::add_traffic(const SimState& state, uint32_t node, uint8_t port, uint64_t xmit_words,
                         uint64_t rcv_words, uint64_t xmit_pkts, uint64_t rcv_pkts) {
  namespace f = wire::port_counters_fields;
  PortPma& pma = at(state, node, port);
  saturating_add(pma.basic, f::xmit_data, xmit_words);
  saturating_add(pma.basic, f::rcv_data, rcv_words);
  saturating_add(pma.basic, f::xmit_pkts, xmit_pkts);
  saturating_add(pma.basic, f::rcv_pkts, rcv_pkts);
  pma.extended.xmit_data += xmit_words;
  pma.extended.rcv_data += rcv_words;
  pma.extended.xmit_pkts += xmit_pkts;
  pma.extended.rcv_pkts += rcv_pkts;
  pma.extended.unicast_xmit_pkts += xmit_pkts;
  pma.extended.unicast_rcv_pkts += rcv_pkts;
}

wire::PortCounters SimPma::counters(const SimState& state, uint32_t node, uint8_t port) const {
  const PortPma* pma = find(state, node, port);
  if (!pma) return {};
  auto c = wire::decode_port_counters(pma->basic);
  return c.ok() ? *c : wire::PortCounters{};
}

wire::PortCountersExtended SimPma::extended(const SimState& state, uint32_t node, uint8_t port) const {
  const PortPma* pma = find(state, node, port);
  return pma ? pma->extended : wire::PortCountersExtended{};
}

}  // namespace ibsm::sim
