#include "mad/umad/umad_transport.h"

#include <cerrno>
#include <climits>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <infiniband/umad.h>

#include <fmt/format.h>

namespace ibsm {
namespace {

// Class versions to register with (IBA 13.4.1): SA is version 2, the rest 1.
uint8_t class_version(uint8_t mgmt_class) { return mgmt_class == 0x03 ? 2 : 1; }

constexpr unsigned kPhysLinkUp = 5;

bool ensure_umad_init() {
  static int rc = umad_init();
  return rc >= 0;
}

}  // namespace

std::vector<UmadPortEntry> list_umad_ports() {
  std::vector<UmadPortEntry> out;
  if (!ensure_umad_init()) return out;
  char names[32][UMAD_CA_NAME_LEN];
  int n = umad_get_cas_names(names, 32);
  for (int i = 0; i < n; ++i) {
    umad_ca_t ca;
    if (umad_get_ca(names[i], &ca) < 0) continue;
    // A switch exposes only its management port 0 to software; a CA its ports 1..n.
    const bool is_switch = ca.node_type == 2;
    const int first = is_switch ? 0 : 1;
    const int last = is_switch ? 0 : ca.numports;
    for (int p = first; p <= last; ++p) {
      umad_port_t port;
      if (umad_get_port(names[i], p, &port) < 0) continue;
      UmadPortEntry e;
      e.ca_name = names[i];
      e.port_num = p;
      e.port_guid = Guid{be64toh(port.port_guid)};
      e.lid = Lid{static_cast<uint16_t>(port.base_lid)};
      e.state = port.state;
      e.phys_state = port.phys_state;
      out.push_back(e);
      umad_release_port(&port);
    }
    umad_release_ca(&ca);
  }
  return out;
}

Result<std::unique_ptr<UmadTransport>> UmadTransport::open(const UmadOptions& options) {
  if (!ensure_umad_init()) return unavailable_error("libibumad failed to initialise (umad_init)");
  auto ports = list_umad_ports();
  if (ports.empty()) return unavailable_error("no InfiniBand port found (no RDMA device, or ibsim not reachable)");

  const UmadPortEntry* chosen = nullptr;
  if (options.port_guid) {
    for (const auto& p : ports)
      if (p.port_guid == *options.port_guid) chosen = &p;
    if (!chosen) return not_found_error(fmt::format("no local port with guid {}", *options.port_guid));
  } else {
    for (const auto& p : ports)
      if (!chosen && p.phys_state == kPhysLinkUp) chosen = &p;
    if (!chosen) chosen = &ports.front();
  }

  std::unique_ptr<UmadTransport> t(new UmadTransport());
  t->ca_name_ = chosen->ca_name;
  t->port_num_ = chosen->port_num;
  t->agents_.fill(-1);
  // umad_size() counts the header only up to where libibumad puts the MAD
  // (umad_get_mad() may start past it): leave room for both.
  t->buffer_.resize(umad_size() + sizeof(ib_user_mad) + kMadSize);
  t->port_id_ = umad_open_port(t->ca_name_.c_str(), t->port_num_);
  if (t->port_id_ < 0)
    return unavailable_error(fmt::format("cannot open umad port {} port {}: {}", t->ca_name_, t->port_num_,
                                         std::strerror(-t->port_id_)));
  for (uint8_t c : options.serve_classes) {
    auto agent = t->register_agent(c, true);
    if (!agent.ok()) return agent.status();
  }
  if (options.set_issm) {
    char path[PATH_MAX];
    if (umad_get_issm_path(t->ca_name_.c_str(), t->port_num_, path, sizeof path) < 0)
      return unavailable_error(fmt::format("no issm device for {} port {}", t->ca_name_, t->port_num_));
    t->issm_fd_ = ::open(path, O_RDWR);
    if (t->issm_fd_ < 0)
      return unavailable_error(fmt::format("cannot open {}: {}", path, std::strerror(errno)));
  }
  return t;
}

UmadTransport::~UmadTransport() {
  if (issm_fd_ >= 0) ::close(issm_fd_);
  if (port_id_ >= 0) {
    for (int a : agents_)
      if (a >= 0) umad_unregister(port_id_, a);
    umad_close_port(port_id_);
  }
}

Result<int> UmadTransport::register_agent(uint8_t mgmt_class, bool serve) {
  // One bit per method: serving means receiving every request method (< 0x80).
  long mask[16 / sizeof(long)] = {};
  if (serve) {
    for (unsigned m = 1; m < 0x80; ++m)
      mask[m / (8 * sizeof(long))] |= 1L << (m % (8 * sizeof(long)));
  }
  int agent = umad_register(port_id_, mgmt_class, class_version(mgmt_class), 0, serve ? mask : nullptr);
  if (agent < 0)
    return unavailable_error(fmt::format("cannot register umad agent for class 0x{:02x}: {}", mgmt_class,
                                         std::strerror(-agent)));
  agents_[mgmt_class] = agent;
  return agent;
}

Result<int> UmadTransport::agent_for(uint8_t mgmt_class) {
  if (agents_[mgmt_class] >= 0) return agents_[mgmt_class];
  return register_agent(mgmt_class, false);
}

Status UmadTransport::send(const MadPacket& packet) {
  uint8_t mgmt_class = packet.data[1];
  auto agent = agent_for(mgmt_class);
  if (!agent.ok()) return agent.status();
  void* umad = buffer_.data();
  std::memset(umad, 0, buffer_.size());
  std::memcpy(umad_get_mad(umad), packet.data.data(), kMadSize);
  umad_set_addr(umad, packet.address.lid.value, static_cast<int>(packet.address.qp), packet.address.sl,
                static_cast<int>(packet.address.qkey));
  umad_set_pkey(umad, packet.address.pkey_index);
  int rc = umad_send(port_id_, *agent, umad, static_cast<int>(kMadSize),
                     static_cast<int>(packet.response_timeout_ms), 0);
  if (rc < 0) return unavailable_error(fmt::format("umad_send failed: {}", std::strerror(-rc)));
  return {};
}

std::optional<MadPacket> UmadTransport::receive() {
  void* umad = buffer_.data();
  int length = static_cast<int>(kMadSize);
  int rc = umad_recv(port_id_, umad, &length, 0);
  if (rc < 0) return std::nullopt;  // nothing waiting (or a transient error: the dispatcher retries)
  MadPacket p;
  std::memcpy(p.data.data(), umad_get_mad(umad), kMadSize);
  const auto* user = static_cast<const ib_user_mad*>(umad);
  p.address.lid = Lid{be16toh(user->addr.lid)};
  p.address.qp = be32toh(user->addr.qpn);
  p.address.qkey = be32toh(user->addr.qkey);
  p.address.sl = user->addr.sl;
  p.address.pkey_index = user->addr.pkey_index;
  p.send_timed_out = umad_status(umad) == ETIMEDOUT;
  return p;
}

void UmadTransport::wait(Micros max_wait) {
  int ms = max_wait <= 0 ? 0 : static_cast<int>((max_wait + 999) / 1000);
  if (wake_fd_ < 0) {
    umad_poll(port_id_, ms);
    return;
  }
  // What umad_poll does, with the wake descriptor beside the port's.
  pollfd fds[2] = {{umad_get_fd(port_id_), POLLIN, 0}, {wake_fd_, POLLIN, 0}};
  (void)::poll(fds, 2, ms);
}

LocalPortInfo UmadTransport::local_port() const {
  LocalPortInfo info;
  info.port_num = static_cast<uint8_t>(port_num_);
  umad_ca_t ca;
  if (umad_get_ca(ca_name_.c_str(), &ca) >= 0) {
    info.node_guid = Guid{be64toh(ca.node_guid)};
    umad_release_ca(&ca);
  }
  umad_port_t port;
  if (umad_get_port(ca_name_.c_str(), port_num_, &port) >= 0) {
    info.port_guid = Guid{be64toh(port.port_guid)};
    info.lid = Lid{static_cast<uint16_t>(port.base_lid)};
    info.sm_lid = Lid{static_cast<uint16_t>(port.sm_lid)};
    info.state = static_cast<PortState>(port.state);
    umad_release_port(&port);
  }
  return info;
}

}  // namespace ibsm
