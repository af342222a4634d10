#include "sa/notices.h"

#include <algorithm>

#include "sa/partition_access.h"

namespace ibsm::sa {
namespace {

constexpr size_t details_offset = wire::notice_fields::data_details.byte_offset();
constexpr size_t gid_in_details = notice_subject_gid.byte_offset() - details_offset;
static_assert(gid_in_details == 6, "IBA 14.2.5.1: traps 64-67 carry 6 reserved bytes before the GID");

}  // namespace

wire::Notice sm_notice(uint16_t trap, Lid sm_lid, const wire::Gid& sm_gid, const wire::Gid& subject) {
  wire::Notice n;
  n.is_generic = true;
  n.type = wire::notice_type::subnet_management;
  n.producer_type = wire::producer_type::class_manager;
  n.trap_number = trap;
  n.issuer_lid = sm_lid;
  n.issuer_gid = sm_gid;
  set_notice_details_gid(n, subject);
  return n;
}

wire::Gid notice_details_gid(const wire::Notice& n) {
  wire::Gid g;
  std::copy_n(n.data_details.begin() + gid_in_details, g.raw.size(), g.raw.begin());
  return g;
}

void set_notice_details_gid(wire::Notice& n, const wire::Gid& gid) {
  std::copy(gid.raw.begin(), gid.raw.end(), n.data_details.begin() + gid_in_details);
}

std::vector<wire::Notice> notices_between(const SaSnapshot& before, const SaSnapshot& after, Lid sm_lid) {
  wire::Gid sm_gid;
  if (const EndPort* sm = after.by_lid(sm_lid)) sm_gid = port_gid(after, *sm);

  // Both end port lists are in ascending GUID order: one merge walk.
  std::vector<wire::Notice> out;
  auto b = before.endports.begin();
  auto a = after.endports.begin();
  while (b != before.endports.end() || a != after.endports.end()) {
    if (a == after.endports.end() || (b != before.endports.end() && b->guid < a->guid)) {
      out.push_back(sm_notice(wire::trap_number::gid_out_of_service, sm_lid, sm_gid, port_gid(before, *b)));
      ++b;
    } else if (b == before.endports.end() || a->guid < b->guid) {
      out.push_back(sm_notice(wire::trap_number::gid_in_service, sm_lid, sm_gid, port_gid(after, *a)));
      ++a;
    } else {
      ++a;
      ++b;
    }
  }
  return out;
}

}  // namespace ibsm::sa
