#include "mad/sim/sim_port.h"

#include "mad/sim/sim_fabric.h"

namespace ibsm {

Status SimPort::send(const MadPacket& packet) {
  if (!attached_) return unavailable_error(fmt::format("sim port {} of node {} is detached", port_, node_));
  return fabric_.send_from(*this, packet);
}

std::optional<MadPacket> SimPort::receive() {
  if (inbox_.empty() || inbox_.top().due > fabric_.now()) return std::nullopt;
  const uint32_t slot = inbox_.top().slot;
  inbox_.pop();
  free_parked_.push_back(slot);
  std::optional<MadPacket> packet(parked_[slot]);
  // A client that let thousands of MADs pile up (frozen) gives their room back.
  if (inbox_.empty() && parked_.size() > kKeptSlots) clear_inbox();
  return packet;
}

MadPacket& SimPort::push_inbox(Micros due, uint64_t seq) {
  uint32_t slot;
  if (free_parked_.empty()) {
    slot = static_cast<uint32_t>(parked_.size());
    parked_.emplace_back();
  } else {
    slot = free_parked_.back();
    free_parked_.pop_back();
  }
  inbox_.push({due, seq, slot});
  return parked_[slot];
}

void SimPort::clear_inbox() {
  inbox_ = {};
  parked_ = {};
  free_parked_ = {};
}

void SimPort::wait(Micros max_wait) { fabric_.wait_for(*this, max_wait); }

std::optional<Micros> SimPort::next_due() const {
  if (inbox_.empty()) return std::nullopt;
  return inbox_.top().due;
}

LocalPortInfo SimPort::local_port() const {
  const sim::SimState& s = fabric_.state_;
  const sim::PortRecord& p = s.port(node_, port_);
  LocalPortInfo info;
  info.node_guid = s.topo_node(node_).node_guid;
  info.port_guid = s.port_guid(node_, port_);
  info.port_num = port_;
  info.lid = Lid{p.lid};
  info.sm_lid = Lid{p.master_sm_lid};
  info.state = p.state;
  return info;
}

void SimPort::set_is_sm(bool is_sm) {
  if (attached_) fabric_.set_port_is_sm(node_, port_, is_sm);
}

}  // namespace ibsm
