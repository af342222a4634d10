// Strong types for the identifiers that every layer passes around, with fmt
// formatters that print them the way the diag tools do (GUIDs as 0x%016x,
// LIDs in decimal, DR paths as "0,1,3").
#pragma once

#include <array>
#include <compare>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include <fmt/format.h>

namespace ibsm {

struct Lid {
  uint16_t value = 0;
  constexpr Lid() = default;
  constexpr explicit Lid(uint16_t v) : value(v) {}
  // IBA 4.1.3: 0x0001-0xBFFF unicast, 0xC000-0xFFFE multicast, 0xFFFF permissive.
  static constexpr uint16_t max_unicast = 0xBFFF;
  static constexpr uint16_t multicast_base = 0xC000;
  static constexpr uint16_t permissive = 0xFFFF;
  constexpr bool is_unicast() const { return value >= 1 && value <= max_unicast; }
  constexpr bool is_multicast() const { return value >= multicast_base && value < permissive; }
  constexpr auto operator<=>(const Lid&) const = default;
};

struct Guid {
  uint64_t value = 0;
  constexpr Guid() = default;
  constexpr explicit Guid(uint64_t v) : value(v) {}
  constexpr bool is_zero() const { return value == 0; }
  constexpr auto operator<=>(const Guid&) const = default;
};

struct PortNum {
  uint8_t value = 0;
  constexpr PortNum() = default;
  constexpr explicit PortNum(uint8_t v) : value(v) {}
  constexpr auto operator<=>(const PortNum&) const = default;
};

// A directed-route path: the initial path of an SMP (IBA 14.2.2). Entry 0 is
// unused by the spec; hops() counts the ports in entries 1..hops().
class DrPath {
 public:
  static constexpr int max_hops = 63;

  constexpr DrPath() = default;
  constexpr int hops() const { return hops_; }
  constexpr uint8_t port(int hop) const { return ports_[static_cast<size_t>(hop)]; }
  constexpr bool full() const { return hops_ >= max_hops; }
  // The path one hop further out through `out_port`. Asserts when full.
  DrPath extended(uint8_t out_port) const;
  DrPath parent() const;  // one hop shorter; asserts on the empty path
  // The 64-byte initial-path field of an SMP.
  constexpr const std::array<uint8_t, 64>& raw() const { return ports_; }
  static DrPath from_raw(const std::array<uint8_t, 64>& raw, int hops);
  // Parses "0,1,3" or "1,3" (a leading 0 for the local port is optional).
  static bool parse(std::string_view text, DrPath& out);
  std::string to_string() const;  // "0,1,3"; the empty path is "0"

  bool operator==(const DrPath& other) const;

 private:
  std::array<uint8_t, 64> ports_{};
  uint8_t hops_ = 0;
};

enum class NodeType : uint8_t { unknown = 0, ca = 1, switch_ = 2, router = 3 };
const char* node_type_name(NodeType t);  // "Ca", "Switch", "Router"

// PortInfo:PortState (IBA 14.2.5.6).
enum class PortState : uint8_t { no_change = 0, down = 1, init = 2, armed = 3, active = 4 };
const char* port_state_name(PortState s);  // "Down", "Initialize", "Armed", "Active"

// PortInfo:PortPhysicalState.
enum class PhysState : uint8_t { no_change = 0, sleep = 1, polling = 2, disabled = 3,
                                 training = 4, link_up = 5, error_recovery = 6, phy_test = 7 };

}  // namespace ibsm

template <> struct std::hash<ibsm::Guid> {
  size_t operator()(ibsm::Guid g) const noexcept { return std::hash<uint64_t>{}(g.value); }
};
template <> struct std::hash<ibsm::Lid> {
  size_t operator()(ibsm::Lid l) const noexcept { return l.value; }
};

template <> struct fmt::formatter<ibsm::Guid> : fmt::formatter<std::string_view> {
  template <typename Ctx> auto format(ibsm::Guid g, Ctx& ctx) const {
    return fmt::format_to(ctx.out(), "0x{:016x}", g.value);
  }
};
template <> struct fmt::formatter<ibsm::Lid> : fmt::formatter<unsigned> {
  template <typename Ctx> auto format(ibsm::Lid l, Ctx& ctx) const {
    return fmt::formatter<unsigned>::format(l.value, ctx);
  }
};
template <> struct fmt::formatter<ibsm::PortNum> : fmt::formatter<unsigned> {
  template <typename Ctx> auto format(ibsm::PortNum p, Ctx& ctx) const {
    return fmt::formatter<unsigned>::format(p.value, ctx);
  }
};
template <> struct fmt::formatter<ibsm::DrPath> : fmt::formatter<std::string_view> {
  template <typename Ctx> auto format(const ibsm::DrPath& p, Ctx& ctx) const {
    return fmt::formatter<std::string_view>::format(p.to_string(), ctx);
  }
};
