// UmadTransport: the Transport over libibumad, for real HCAs and for ibsim
// through umad2sim (LD_PRELOAD). This is an edge component: it touches the OS
// and never appears in the embedded build.
#pragma once

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "mad/transport.h"

namespace ibsm {

struct UmadOptions {
  // Bind to the port with this GUID; otherwise the first port whose physical
  // link is up (OpenSM's choice), or the first port at all.
  std::optional<Guid> port_guid;
  // Management classes to receive unsolicited requests for (e.g. SMI when
  // acting as SM, SA when serving). Responses to our own requests always
  // arrive, whatever is listed here.
  std::vector<uint8_t> serve_classes;
  // Open the issm device so the port advertises IsSM in its capability mask.
  bool set_issm = false;
};

// One local port as listed by libibumad.
struct UmadPortEntry {
  std::string ca_name;
  int port_num = 0;
  Guid port_guid;
  Lid lid;
  unsigned state = 0;
  unsigned phys_state = 0;
};
// Every port of every CA on this host (empty if there is no RDMA device).
std::vector<UmadPortEntry> list_umad_ports();

class UmadTransport final : public Transport {
 public:
  static Result<std::unique_ptr<UmadTransport>> open(const UmadOptions& options);
  ~UmadTransport() override;
  UmadTransport(const UmadTransport&) = delete;
  UmadTransport& operator=(const UmadTransport&) = delete;

  Status send(const MadPacket& packet) override;
  std::optional<MadPacket> receive() override;
  void wait(Micros max_wait) override;
  LocalPortInfo local_port() const override;

  const std::string& ca_name() const { return ca_name_; }
  // Another descriptor whose readability ends wait() early (the daemon's
  // control socket: a request waits for the main loop); -1: none. The
  // caller drains it.
  void set_wake_fd(int fd) { wake_fd_ = fd; }

 private:
  UmadTransport() = default;
  // The agent for a class, registering one (responses only) on first use.
  Result<int> agent_for(uint8_t mgmt_class);
  Result<int> register_agent(uint8_t mgmt_class, bool serve);

  std::string ca_name_;
  int port_num_ = 0;
  int port_id_ = -1;
  int issm_fd_ = -1;
  int wake_fd_ = -1;
  std::array<int, 256> agents_{};  // by management class; -1 none
  std::vector<uint8_t> buffer_;    // one ib_user_mad and its 256-byte MAD
};

}  // namespace ibsm
