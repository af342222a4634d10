#include "sm/manager/remote_sms.h"

#include <fmt/format.h>

#include "mad/wire/port_info.h"
#include "sm/sweep/smp_issuer.h"

namespace ibsm {

std::vector<RemoteSm> sm_ports(const DiscoveryResult& discovery, Guid self) {
  std::vector<RemoteSm> ports;
  const Fabric& f = discovery.fabric;
  for (uint32_t i = 0; i < f.node_count() && i < discovery.port_info.size(); ++i) {
    const Node& node = f.node(NodeIndex{i});
    for (uint8_t p = 0; p <= node.num_ports && p < discovery.port_info[i].size(); ++p) {
      const wire::PortInfo& pi = discovery.port_info[i][p];
      if (pi.port_state == PortState::no_change || (pi.capability_mask & wire::port_cap::is_sm) == 0) continue;
      if (node.is_switch() ? p != 0 : p == 0) continue;
      const Guid guid = node.port(p).guid;
      if (guid == self) continue;
      auto path = path_into(discovery, NodeIndex{i}, p);
      if (!path) continue;
      ports.push_back(RemoteSm{guid, NodeIndex{i}, p, *path, Lid{pi.lid}, {}});
    }
  }
  return ports;
}

std::vector<RemoteSm> read_sm_infos(MadDispatcher& d, const std::vector<RemoteSm>& ports, const wire::SmInfo& self,
                                    Guid presumed_dead, LogSink& log) {
  std::vector<RemoteSm> read = ports;
  std::vector<bool> answered(read.size(), false);
  SmpIssuer smp(d, [&log](const SmpSubject& what, const DrPath& path, const SmpFailure& failure) {
    ibsm::log(log, LogLevel::debug, Subsystem::state, "{} (dr path {}): {}: left out of the election", what.text(),
              path, failure.why);
  });
  std::array<uint8_t, wire::smp_data_size> payload{};
  wire::encode(self, payload);
  for (size_t i = 0; i < read.size(); ++i) {
    RequestOptions o;
    o.retries = read[i].port_guid == presumed_dead ? 0 : 1;
    smp.set_request_options(o);
    smp.get(read[i].path, wire::smp_attr::sm_info, 0, payload, fmt::format("SMInfo of port {}", read[i].port_guid),
            [&read, &answered, i](std::span<const uint8_t> data) {
              auto info = wire::decode_sm_info(data);
              if (!info.ok()) return;
              read[i].info = *info;
              answered[i] = true;
            });
  }
  smp.run();
  std::vector<RemoteSm> found;
  for (size_t i = 0; i < read.size(); ++i) {
    if (!answered[i]) continue;
    ibsm::log(log, LogLevel::debug, Subsystem::state, "sm at port {} (lid {}): {} priority {}, SM_Key {}",
              read[i].port_guid, read[i].lid, wire::sm_state_name(read[i].info.sm_state), read[i].info.priority,
              read[i].info.sm_key == self.sm_key ? "ours" : read[i].info.sm_key == 0 ? "0" : "another");
    found.push_back(std::move(read[i]));
  }
  return found;
}

}  // namespace ibsm
