#include "sa/record_tables.h"

#include <algorithm>

namespace ibsm::sa {
namespace {

// Nodes in scope, by node GUID.
template <typename Fn>
void for_each_node(const SaSnapshot& s, const RecordScope& scope, Fn&& fn) {
  if (scope.node) {
    if (scope.node->value < s.fabric.node_count()) fn(*scope.node);
    return;
  }
  for (NodeIndex n : s.nodes_by_guid) fn(n);
}

// A CA port in scope: read by the SM, and the scope's port if it names one.
bool ca_port_in_scope(const SaSnapshot& s, const RecordScope& scope, NodeIndex n, uint8_t p) {
  return s.has_port_info(n, p) && (!scope.port || *scope.port == p);
}

// LID-owning ports in scope, by port GUID.
template <typename Fn>
void for_each_endport(const SaSnapshot& s, const RecordScope& scope, Fn&& fn) {
  if (!scope.node) {
    for (const EndPort& e : s.endports) fn(e);
    return;
  }
  if (scope.node->value >= s.fabric.node_count()) return;
  const Node& node = s.fabric.node(*scope.node);
  std::vector<const EndPort*> mine;
  if (node.is_switch()) {
    if (const EndPort* e = s.by_port_guid(node.port(0).guid)) mine.push_back(e);
  } else {
    for (uint8_t p = 1; p <= node.num_ports; ++p) {
      if (!ca_port_in_scope(s, scope, *scope.node, p)) continue;
      if (const EndPort* e = s.by_port_guid(node.port(p).guid); e && e->ref == PortRef{*scope.node, p}) mine.push_back(e);
    }
  }
  std::sort(mine.begin(), mine.end(), [](const EndPort* a, const EndPort* b) { return a->guid.value < b->guid.value; });
  for (const EndPort* e : mine) fn(*e);
}

// The ports of an end port's node that tables list per port: a switch's
// ports 0..N that the SM read, or the CA port itself.
template <typename Fn>
void for_each_table_port(const SaSnapshot& s, const EndPort& e, Fn&& fn) {
  const Node& node = s.fabric.node(e.ref.node);
  if (!node.is_switch()) {
    fn(e.ref.port);
    return;
  }
  for (uint8_t p = 0; p <= node.num_ports; ++p)
    if (s.has_port_info(e.ref.node, p)) fn(p);
}

wire::NodeInfo node_info_of(const SaSnapshot& s, NodeIndex n, uint8_t port) {
  const Node& node = s.fabric.node(n);
  wire::NodeInfo ni;
  ni.node_type = node.type;
  ni.num_ports = node.num_ports;
  ni.system_image_guid = node.system_guid;
  ni.node_guid = node.node_guid;
  ni.port_guid = node.port(port).guid;
  ni.partition_cap = static_cast<uint16_t>(s.p_keys[n.value][port].size());
  ni.device_id = node.device_id;
  ni.revision = node.revision;
  ni.local_port_num = node.is_switch() ? s.entry_port[n.value] : port;
  ni.vendor_id = node.vendor_id;
  return ni;
}

}  // namespace

void visit_node_records(const SaSnapshot& s, const RecordScope& scope, const RecordVisitor<wire::NodeRecord>& fn) {
  for_each_node(s, scope, [&](NodeIndex n) {
    const Node& node = s.fabric.node(n);
    auto emit = [&](uint8_t port) {
      wire::NodeRecord r;
      r.lid = s.record_lid(n, port);
      r.node_info = node_info_of(s, n, port);
      r.set_description(node.description);
      fn(r);
    };
    if (node.is_switch()) {
      emit(0);
      return;
    }
    for (uint8_t p = 1; p <= node.num_ports; ++p)
      if (ca_port_in_scope(s, scope, n, p)) emit(p);
  });
}

void visit_port_info_records(const SaSnapshot& s, const RecordScope& scope,
                             const RecordVisitor<wire::PortInfoRecord>& fn) {
  for_each_node(s, scope, [&](NodeIndex n) {
    const Node& node = s.fabric.node(n);
    for (uint8_t p = 0; p <= node.num_ports; ++p) {
      if (!s.has_port_info(n, p)) continue;
      if (!node.is_switch() && !ca_port_in_scope(s, scope, n, p)) continue;
      wire::PortInfoRecord r;
      r.endport_lid = s.record_lid(n, p);
      r.port_num = p;
      r.port_info = s.port_info[n.value][p];
      fn(r);
    }
  });
}

void visit_link_records(const SaSnapshot& s, const RecordScope& scope, const RecordVisitor<wire::LinkRecord>& fn) {
  for_each_node(s, scope, [&](NodeIndex n) {
    const Node& node = s.fabric.node(n);
    for (uint8_t p = 1; p <= node.num_ports; ++p) {
      const Port& port = node.port(p);
      if (!port.connected()) continue;
      if (!node.is_switch() && scope.port && *scope.port != p) continue;
      wire::LinkRecord r;
      r.from_lid = s.record_lid(n, p);
      r.from_port = p;
      r.to_port = port.remote_port;
      r.to_lid = s.record_lid(port.remote_node, port.remote_port);
      fn(r);
    }
  });
}

void visit_switch_info_records(const SaSnapshot& s, const RecordScope& scope,
                               const RecordVisitor<wire::SwitchInfoRecord>& fn) {
  for_each_node(s, scope, [&](NodeIndex n) {
    if (!s.fabric.node(n).is_switch()) return;
    wire::SwitchInfoRecord r;
    r.lid = s.record_lid(n, 0);
    r.switch_info = s.switch_info[n.value];
    fn(r);
  });
}

void visit_lft_records(const SaSnapshot& s, const RecordScope& scope,
                       const RecordVisitor<wire::LinearForwardingTableRecord>& fn) {
  for_each_node(s, scope, [&](NodeIndex n) {
    if (!s.fabric.node(n).is_switch()) return;
    const std::vector<uint8_t>& lft = s.lft(n);
    const size_t blocks = (lft.size() + wire::lft_block_size - 1) / wire::lft_block_size;
    for (size_t b = 0; b < blocks; ++b) {
      wire::LinearForwardingTableRecord r;
      r.lid = s.record_lid(n, 0);
      r.block_num = static_cast<uint16_t>(b);
      r.lft.ports.fill(0xFF);
      for (size_t k = 0; k < wire::lft_block_size && b * wire::lft_block_size + k < lft.size(); ++k)
        r.lft.ports[k] = lft[b * wire::lft_block_size + k];
      fn(r);
    }
  });
}

void visit_mft_records(const SaSnapshot& s, const MulticastTables* tables, const RecordScope& scope,
                       const RecordVisitor<wire::MulticastForwardingTableRecord>& fn) {
  if (tables == nullptr || tables->node_count() != s.fabric.node_count()) return;
  constexpr uint16_t first = 0xC000;  // the first multicast LID (IBA 4.1.2)
  constexpr size_t per_block = wire::mft_entries_per_block;
  for_each_node(s, scope, [&](NodeIndex n) {
    const Node& node = s.fabric.node(n);
    const MulticastTables::Entries& entries = tables->of(n);
    if (!node.is_switch() || entries.empty()) return;
    const size_t blocks = (entries.rbegin()->first - first) / per_block + 1;
    const unsigned positions = node.num_ports / 16u + 1;
    for (size_t b = 0; b < blocks; ++b) {
      for (unsigned position = 0; position < positions; ++position) {
        wire::MulticastForwardingTableRecord r;
        r.lid = s.record_lid(n, 0);
        r.position = static_cast<uint8_t>(position);
        r.block_num = static_cast<uint16_t>(b);
        const auto from = entries.lower_bound(static_cast<uint16_t>(first + b * per_block));
        for (auto it = from; it != entries.end() && it->first < first + (b + 1) * per_block; ++it)
          r.mft.port_masks[it->first - first - b * per_block] = it->second.position_bits(position);
        fn(r);
      }
    }
  });
}

void visit_sm_info_records(const SaSnapshot& s, const RecordScope& scope, const RecordVisitor<wire::SmInfoRecord>& fn) {
  if (scope.node && *scope.node != s.sm_port.node) return;
  wire::SmInfoRecord r;
  r.lid = s.sm_lid;
  r.sm_info = s.sm_info;
  fn(r);
}

void visit_guid_info_records(const SaSnapshot& s, const RecordScope& scope,
                             const RecordVisitor<wire::GuidInfoRecord>& fn) {
  for_each_endport(s, scope, [&](const EndPort& e) {
    const wire::PortInfo& pi = s.port_info[e.ref.node.value][e.ref.port];
    const size_t blocks = (size_t{pi.guid_cap} + wire::guids_per_block - 1) / wire::guids_per_block;
    for (size_t b = 0; b < std::max<size_t>(blocks, 1); ++b) {
      wire::GuidInfoRecord r;
      r.lid = e.base_lid;
      r.block_num = static_cast<uint8_t>(b);
      if (b == 0) r.guid_info.guids[0] = e.guid;
      fn(r);
    }
  });
}

void visit_p_key_table_records(const SaSnapshot& s, const RecordScope& scope,
                               const RecordVisitor<wire::PKeyTableRecord>& fn) {
  for_each_endport(s, scope, [&](const EndPort& e) {
    for_each_table_port(s, e, [&](uint8_t p) {
      const std::vector<uint16_t>& table = s.p_keys[e.ref.node.value][p];
      const size_t blocks = (table.size() + wire::p_keys_per_block - 1) / wire::p_keys_per_block;
      for (size_t b = 0; b < blocks; ++b) {
        wire::PKeyTableRecord r;
        r.lid = e.base_lid;
        r.block_num = static_cast<uint16_t>(b);
        r.port_num = p;
        for (size_t k = 0; k < wire::p_keys_per_block && b * wire::p_keys_per_block + k < table.size(); ++k)
          r.p_key_table.p_keys[k] = table[b * wire::p_keys_per_block + k];
        fn(r);
      }
    });
  });
}

void visit_sl_to_vl_table_records(const SaSnapshot& s, const RecordScope& scope,
                                  const RecordVisitor<wire::SlToVlTableRecord>& fn) {
  for_each_endport(s, scope, [&](const EndPort& e) {
    auto emit = [&](uint8_t in, uint8_t out) {
      wire::SlToVlTableRecord r;
      r.lid = e.base_lid;
      r.input_port_num = in;
      r.output_port_num = out;
      r.sl_to_vl = s.sl_to_vl;
      fn(r);
    };
    if (!s.fabric.node(e.ref.node).is_switch()) {
      emit(0, e.ref.port);
      return;
    }
    for_each_table_port(s, e, [&](uint8_t out) { for_each_table_port(s, e, [&](uint8_t in) { emit(in, out); }); });
  });
}

void visit_vl_arbitration_table_records(const SaSnapshot& s, const RecordScope& scope,
                                        const RecordVisitor<wire::VlArbitrationTableRecord>& fn) {
  for_each_endport(s, scope, [&](const EndPort& e) {
    for_each_table_port(s, e, [&](uint8_t p) {
      // Block 1: low priority entries 0-31, 2: low 32-63, 3: high 0-31, 4:
      // high 32-63. Every port has all four blocks, as its SMA answers a Get
      // of each (IBA 14.2.5.9); entries past the port's cap are unused and
      // zero. OpenSM serves all four too, and osmtest -f q asks for each.
      for (uint8_t block = 1; block <= 4; ++block) {
        const bool second_half = block % 2 == 0;
        wire::VlArbitrationTableRecord r;
        r.lid = e.base_lid;
        r.output_port_num = p;
        r.block_num = block;
        if (!second_half) r.vl_arbitration = block == 1 ? s.vl_arbitration_low : s.vl_arbitration_high;
        fn(r);
      }
    });
  });
}

}  // namespace ibsm::sa
