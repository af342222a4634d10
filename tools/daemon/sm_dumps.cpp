#include "tools/daemon/sm_dumps.h"

#include <filesystem>

#include <fmt/format.h>

#include "sm/dump/opensm_dump.h"
#include "tools/os/files.h"

namespace ibsm::tools {

Status write_sm_dumps(const std::string& dir, const SweepReport& report, const MulticastTables* multicast) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return unavailable_error(fmt::format("cannot create {}: {}", dir, ec.message()));
  if (!report.subnet) return failed_precondition_error("the sweep configured no subnet");
  const Fabric& f = report.subnet->fabric;
  const auto& lfts = report.subnet->lfts;
  SubnetLstOptions o;
  o.sm_lid = report.sm_lid;
  const std::filesystem::path base(dir);
  IBSM_RETURN_IF_ERROR(write_stream_output((base / "opensm-subnet.lst").string(),
                                           [&](std::ostream& out) { write_opensm_subnet_lst(f, out, o); }));
  IBSM_RETURN_IF_ERROR(
      write_stream_output((base / "opensm.fdbs").string(), [&](std::ostream& out) { write_opensm_fdbs(f, lfts, out); }));
  IBSM_RETURN_IF_ERROR(
      write_stream_output((base / "opensm.mcfdbs").string(), [&](std::ostream& out) {
        if (multicast) {
          write_opensm_mcfdbs(f, *multicast, out);
        } else {
          write_opensm_mcfdbs(f, out);
        }
      }));
  return write_stream_output((base / "opensm-lfts.dump").string(),
                             [&](std::ostream& out) { write_opensm_lfts_dump(f, lfts, out); });
}

Status write_sm_dumps(const std::string& dir, const SubnetManager& sm) {
  const SweepReport* report = sm.last_sweep();
  if (!report) return failed_precondition_error("no sweep has configured the subnet yet");
  const MulticastTables* mcast = sm.multicast().subnet() == report->subnet ? sm.multicast().tables().get() : nullptr;
  return write_sm_dumps(dir, *report, mcast);
}

Status write_mcfdbs_dump(const std::string& dir, const Fabric& fabric, const MulticastTables& multicast) {
  return write_stream_output((std::filesystem::path(dir) / "opensm.mcfdbs").string(),
                             [&](std::ostream& out) { write_opensm_mcfdbs(fabric, multicast, out); });
}

}  // namespace ibsm::tools
