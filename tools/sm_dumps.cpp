#include "tools/sm_dumps.h"

#include <filesystem>
#include <sstream>

#include <fmt/format.h>

#include "sm/dump/opensm_dump.h"
#include "tools/os/files.h"

namespace ibsm::tools {

Status write_sm_dumps(const std::string& dir, const SweepReport& report) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return unavailable_error(fmt::format("cannot create {}: {}", dir, ec.message()));
  const Fabric& f = report.configured;
  const auto& lfts = report.routes.lfts;
  std::ostringstream subnet, fdbs, mcfdbs, lfts_dump;
  SubnetLstOptions o;
  o.sm_lid = report.sm_lid;
  write_opensm_subnet_lst(f, subnet, o);
  write_opensm_fdbs(f, lfts, fdbs);
  write_opensm_mcfdbs(f, mcfdbs);
  write_opensm_lfts_dump(f, lfts, lfts_dump);
  std::filesystem::path base(dir);
  IBSM_RETURN_IF_ERROR(write_text_output((base / "opensm-subnet.lst").string(), subnet.str()));
  IBSM_RETURN_IF_ERROR(write_text_output((base / "opensm.fdbs").string(), fdbs.str()));
  IBSM_RETURN_IF_ERROR(write_text_output((base / "opensm.mcfdbs").string(), mcfdbs.str()));
  return write_text_output((base / "opensm-lfts.dump").string(), lfts_dump.str());
}

}  // namespace ibsm::tools
