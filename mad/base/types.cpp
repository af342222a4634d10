#include "mad/base/types.h"

#include <cassert>

#include "mad/base/text.h"

namespace ibsm {

DrPath DrPath::extended(uint8_t out_port) const {
  assert(!full());
  DrPath p = *this;
  p.hops_ = static_cast<uint8_t>(hops_ + 1);
  p.ports_[p.hops_] = out_port;
  return p;
}

DrPath DrPath::parent() const {
  assert(hops_ > 0);
  DrPath p = *this;
  p.ports_[hops_] = 0;
  p.hops_ = static_cast<uint8_t>(hops_ - 1);
  return p;
}

DrPath DrPath::from_raw(const std::array<uint8_t, 64>& raw, int hops) {
  assert(hops >= 0 && hops <= max_hops);
  DrPath p;
  p.hops_ = static_cast<uint8_t>(hops);
  for (int i = 1; i <= hops; ++i) p.ports_[static_cast<size_t>(i)] = raw[static_cast<size_t>(i)];
  return p;
}

bool DrPath::parse(std::string_view text, DrPath& out) {
  DrPath p;
  bool first = true;
  while (!text.empty()) {
    size_t comma = text.find(',');
    std::string_view item = text.substr(0, comma);
    if (item.empty() || item.size() > 3) return false;
    const auto v = parse_unsigned(item, Notation::decimal, 255);
    if (!v) return false;
    if (first && *v == 0) {
      // leading 0 names the local port: not a hop
    } else {
      if (p.full()) return false;
      p = p.extended(static_cast<uint8_t>(*v));
    }
    first = false;
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
    if (text.empty()) return false;  // trailing comma
  }
  out = p;
  return true;
}

std::string DrPath::to_string() const {
  std::string s = "0";
  for (int i = 1; i <= hops_; ++i) {
    s += ',';
    s += std::to_string(ports_[static_cast<size_t>(i)]);
  }
  return s;
}

bool DrPath::operator==(const DrPath& other) const {
  if (hops_ != other.hops_) return false;
  for (int i = 1; i <= hops_; ++i)
    if (ports_[static_cast<size_t>(i)] != other.ports_[static_cast<size_t>(i)]) return false;
  return true;
}

const char* node_type_name(NodeType t) {
  switch (t) {
    case NodeType::ca: return "Ca";
    case NodeType::switch_: return "Switch";
    case NodeType::router: return "Router";
    case NodeType::unknown: break;
  }
  return "Unknown";
}

const char* port_state_name(PortState s) {
  switch (s) {
    case PortState::no_change: return "NoChange";
    case PortState::down: return "Down";
    case PortState::init: return "Initialize";
    case PortState::armed: return "Armed";
    case PortState::active: return "Active";
  }
  return "Unknown";
}

}  // namespace ibsm
