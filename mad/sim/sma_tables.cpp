// The table attributes: P_KeyTable, SLtoVLMappingTable, VLArbitrationTable,
// LinearForwardingTable and MulticastForwardingTable (IBA 14.2.5.7-14.2.5.12).
// Tables are kept in their wire layout, so Get and Set copy bytes. Blocks or
// ports beyond what the node has are an invalid field.
#include <algorithm>

#include "mad/sim/sma_handlers.h"
#include "mad/wire/constants.h"
#include "mad/wire/linear_forwarding_table.h"
#include "mad/wire/multicast_forwarding_table.h"
#include "mad/wire/p_key_table.h"
#include "mad/wire/vl_arbitration_table.h"

namespace ibsm::sim {

namespace status = wire::mad_status;

namespace {

void answer(std::span<uint8_t> data, std::span<const uint8_t> table) {
  std::fill(data.begin(), data.end(), uint8_t{0});
  std::copy(table.begin(), table.end(), data.begin());
}

}  // namespace

// P_KeyTable: modifier bits 15-0 the block of 32 keys; on a switch bits 31-16
// the port. A CA answers for the port the SMP entered.
uint16_t sma_p_key_table(SimState& s, const SmaRequest& r, bool set, std::span<uint8_t> data) {
  const NodeRecord& node = s.node(r.node);
  const uint32_t block = r.attr_mod & 0xFFFF;
  uint8_t port = r.in_port;
  if (node.is_switch()) {
    const uint32_t p = r.attr_mod >> 16;
    if (p > node.num_ports) return status::invalid_field;
    port = static_cast<uint8_t>(p);
  }
  const size_t cap = s.p_key_capacity(r.node, port);
  if (size_t{block} * wire::p_keys_per_block >= cap) return status::invalid_field;
  const size_t first = block * wire::p_keys_per_block * 2;
  const size_t bytes = std::min(cap * 2 - first, wire::p_keys_per_block * 2);
  if (set) {
    std::span<uint8_t> table = s.p_key_table_for_write(r.node, port);
    std::copy_n(data.begin(), bytes, table.begin() + static_cast<std::ptrdiff_t>(first));
  }
  answer(data, s.p_key_table(r.node, port).subspan(first, bytes));
  return status::ok;
}

// SLtoVLMappingTable: on a switch, modifier bits 15-8 the input port and 7-0
// the output port; a CA has one table per port and ignores the modifier.
uint16_t sma_sl_to_vl(SimState& s, const SmaRequest& r, bool set, std::span<uint8_t> data) {
  const NodeRecord& node = s.node(r.node);
  uint8_t in = r.in_port;
  uint8_t out = 0;
  if (node.is_switch()) {
    const uint32_t in_port = (r.attr_mod >> 8) & 0xFF;
    const uint32_t out_port = r.attr_mod & 0xFF;
    if (in_port > node.num_ports || out_port > node.num_ports) return status::invalid_field;
    in = static_cast<uint8_t>(in_port);
    out = static_cast<uint8_t>(out_port);
  }
  if (set) {
    std::span<uint8_t, 8> table = s.sl_to_vl_for_write(r.node, in, out);
    std::copy_n(data.begin(), table.size(), table.begin());
  }
  answer(data, s.sl_to_vl(r.node, in, out));
  return status::ok;
}

// VLArbitrationTable: modifier bits 31-16 the part (1-2 low priority, 3-4
// high, entries 0-31 then 32-63), on a switch bits 15-0 the port. Ports have
// 8 entries per table (VLArbitration*Cap), so parts 2 and 4 do not exist.
uint16_t sma_vl_arbitration(SimState& s, const SmaRequest& r, bool set, std::span<uint8_t> data) {
  const NodeRecord& node = s.node(r.node);
  uint8_t port = r.in_port;
  if (node.is_switch()) {
    const uint32_t p = r.attr_mod & 0xFFFF;
    if (p > node.num_ports) return status::invalid_field;
    port = static_cast<uint8_t>(p);
  }
  const uint32_t part = r.attr_mod >> 16;
  if (part != wire::vl_arbitration_part::low_0_31 && part != wire::vl_arbitration_part::high_0_31)
    return status::invalid_field;
  const bool high = part == wire::vl_arbitration_part::high_0_31;
  if (set) {
    std::span<uint8_t> table = s.vl_arbitration_for_write(r.node, port, high);
    std::copy_n(data.begin(), table.size(), table.begin());
  }
  answer(data, s.vl_arbitration(r.node, port, high));
  return status::ok;
}

// LinearForwardingTable: modifier = block of 64 LIDs, below LinearFDBCap.
// Storage grows to the highest block written; unwritten entries read 0xFF.
uint16_t sma_lft(SimState& s, const SmaRequest& r, bool set, std::span<uint8_t> data) {
  SwitchRecord* sw = s.switch_of(r.node);
  if (sw == nullptr) return status::method_attr_unsupported;
  if (uint64_t{r.attr_mod} * wire::lft_block_size >= s.options().linear_fdb_cap) return status::invalid_field;
  const size_t first = size_t{r.attr_mod} * wire::lft_block_size;
  if (set) {
    if (sw->lft.size() < first + wire::lft_block_size) {
      // Grown once to LinearFDBTop (set before the blocks are), not by
      // doubling: 3,468 switches x 42,772 LIDs are 148 MB, and doubling's
      // slack cost another 100.
      const size_t top_blocks = size_t{sw->linear_fdb_top} / wire::lft_block_size + 1;
      sw->lft.reserve(std::max(first + wire::lft_block_size, top_blocks * wire::lft_block_size));
      sw->lft.resize(first + wire::lft_block_size, wire::lft_unreachable_port);
    }
    std::copy_n(data.begin(), wire::lft_block_size, sw->lft.begin() + static_cast<std::ptrdiff_t>(first));
  }
  if (first < sw->lft.size()) {
    std::copy_n(sw->lft.begin() + static_cast<std::ptrdiff_t>(first), wire::lft_block_size, data.begin());
  } else {
    std::fill_n(data.begin(), wire::lft_block_size, wire::lft_unreachable_port);
  }
  return status::ok;
}

// MulticastForwardingTable: modifier bits 8-0 the block of 32 MLIDs (below
// MulticastFDBCap), bits 31-28 the position (ports 16p..16p+15).
uint16_t sma_mft(SimState& s, const SmaRequest& r, bool set, std::span<uint8_t> data) {
  SwitchRecord* sw = s.switch_of(r.node);
  if (sw == nullptr) return status::method_attr_unsupported;
  const uint32_t block = wire::mft_block_of(r.attr_mod);
  const uint32_t position = wire::mft_position_of(r.attr_mod);
  const uint8_t positions = SimState::mft_positions(s.node(r.node).num_ports);
  if (uint64_t{block} * wire::mft_entries_per_block >= s.options().multicast_fdb_cap || position >= positions)
    return status::invalid_field;
  const size_t first = (size_t{block} * positions + position) * wire::mft_block_size;
  if (set) {
    if (sw->mft.size() < first + wire::mft_block_size) sw->mft.resize(first + wire::mft_block_size, 0);
    std::copy_n(data.begin(), wire::mft_block_size, sw->mft.begin() + static_cast<std::ptrdiff_t>(first));
  }
  if (first < sw->mft.size()) {
    std::copy_n(sw->mft.begin() + static_cast<std::ptrdiff_t>(first), wire::mft_block_size, data.begin());
  } else {
    std::fill_n(data.begin(), wire::mft_block_size, uint8_t{0});
  }
  return status::ok;
}

}  // namespace ibsm::sim
