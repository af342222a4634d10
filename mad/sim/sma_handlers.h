// The SMA's attribute handlers, one per attribute (internal to mad/sim).
// Each gets the request, the SMP data (request in, answer out) and whether it
// is a Set, and returns the MAD status.
#pragma once

#include <cstdint>
#include <span>

#include "mad/sim/sim_state.h"
#include "mad/sim/sma.h"

namespace ibsm::sim {

uint16_t sma_node_info(SimState& s, const SmaRequest& r, bool set, std::span<uint8_t> data);
uint16_t sma_node_description(SimState& s, const SmaRequest& r, bool set, std::span<uint8_t> data);
uint16_t sma_switch_info(SimState& s, const SmaRequest& r, bool set, std::span<uint8_t> data);
uint16_t sma_guid_info(SimState& s, const SmaRequest& r, bool set, std::span<uint8_t> data);
uint16_t sma_port_info(SimState& s, const SmaRequest& r, bool set, std::span<uint8_t> data);
uint16_t sma_p_key_table(SimState& s, const SmaRequest& r, bool set, std::span<uint8_t> data);
uint16_t sma_sl_to_vl(SimState& s, const SmaRequest& r, bool set, std::span<uint8_t> data);
uint16_t sma_vl_arbitration(SimState& s, const SmaRequest& r, bool set, std::span<uint8_t> data);
uint16_t sma_lft(SimState& s, const SmaRequest& r, bool set, std::span<uint8_t> data);
uint16_t sma_mft(SimState& s, const SmaRequest& r, bool set, std::span<uint8_t> data);

}  // namespace ibsm::sim
