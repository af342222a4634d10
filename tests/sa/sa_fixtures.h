// Snapshots for the SA tests: from a heavy sweep of a SimFabric, and from a
// generated fabric with LIDs assigned and no sweep at all.
#pragma once

#include <algorithm>
#include <memory>
#include <span>
#include <sstream>
#include <vector>

#include <catch2/catch.hpp>

#include "mad/base/clock.h"
#include "mad/transport.h"
#include "mad/wire/inform_info.h"
#include "mad/wire/mad_header.h"
#include "mad/wire/sa/component_mask.h"
#include "mad/wire/sa/service_record.h"
#include "sa/client.h"
#include "sa/query.h"
#include "sa/snapshot.h"
#include "sm/fabric/netfile_reader.h"
#include "sm/sweep/configured_subnet.h"
#include "sm/sweep/lid_assignment.h"
#include "tests/sm/sweep/sweep_harness.h"

namespace ibsm::test {

inline constexpr Micros ms = 1'000;
inline constexpr Micros second = 1'000'000;

inline uint8_t method_of(const MadPacket& p) {
  return static_cast<uint8_t>(wire::get_field(p.data, wire::mad_fields::method));
}
inline uint64_t tid_of(const MadPacket& p) { return wire::get_field(p.data, wire::mad_fields::transaction_id); }

// ServiceRecord ComponentMask bits (IBA 15.2.5.14), and those a registration sets.
constexpr uint64_t service_record_bit(const wire::Field& f) {
  return wire::component_bit(wire::service_record_components, f);
}
namespace service_mask {
inline constexpr uint64_t c_id = service_record_bit(wire::service_record_fields::service_id),
                          c_gid = service_record_bit(wire::service_record_fields::service_gid),
                          c_pkey = service_record_bit(wire::service_record_fields::service_p_key),
                          c_lease = service_record_bit(wire::service_record_fields::service_lease),
                          c_key = service_record_bit(wire::service_record_fields::service_key),
                          c_name = service_record_bit(wire::service_record_fields::service_name);
inline constexpr uint64_t set_mask = c_id | c_gid | c_lease | c_key | c_name;
}  // namespace service_mask

inline sa::SaSnapshotOptions sa_options() {
  sa::SaSnapshotOptions o;
  o.sm_key = 0x1122334455667788ULL;
  o.sm_priority = 5;
  o.generation = 3;
  return o;
}

// The value of a decode that must succeed.
template <typename T>
T decoded(Result<T> r) {
  INFO((r.ok() ? std::string() : r.status().message()));
  REQUIRE(r.ok());
  return std::move(*r);
}

// Requires that `r` answers exactly the rows of `table` that agree with
// `tmpl` on the components in `mask`, in table order (a naive filter over the
// whole encoded table); returns how many that is.
inline size_t require_filtered(const sa::SaQueryResult& r, const std::vector<std::vector<uint8_t>>& table,
                               std::span<const uint8_t> tmpl, uint64_t mask, std::span<const wire::Component> comps) {
  std::vector<size_t> expected;
  for (size_t i = 0; i < table.size(); ++i)
    if (wire::masked_fields_equal(table[i], tmpl, mask, comps)) expected.push_back(i);
  INFO("mask " << std::hex << mask);
  REQUIRE(r.count == expected.size());
  for (size_t k = 0; k < expected.size(); ++k) {
    auto rec = r.record(k);
    CHECK(std::equal(rec.begin(), rec.end(), table[expected[k]].begin()));
  }
  return expected.size();
}

// A query whose template is `tmpl` encoded in `size` bytes; the bytes live
// in the struct, so keep it while the query is used (moving it is fine).
struct EncodedQuery {
  std::vector<uint8_t> bytes;
  sa::SaQuery query;
};
template <typename R>
EncodedQuery encoded_query(uint8_t method, uint16_t attribute, uint64_t mask, const R& tmpl, size_t size,
                           Lid requester = {}, bool trusted = false) {
  EncodedQuery e;
  e.bytes.resize(size);
  encode(tmpl, e.bytes);
  e.query.method = method;
  e.query.attribute = attribute;
  e.query.component_mask = mask;
  e.query.record = e.bytes;
  e.query.requester = requester;
  e.query.trusted = trusted;
  return e;
}

// The SA snapshot after one heavy sweep by `h`'s SM.
inline sa::SaSnapshot swept_snapshot(SweepHarness& h, uint8_t lmc = 0) {
  h.config().lids.lmc = lmc;
  SweepReport r = h.heavy();
  INFO(fmt::format("problems: {}", fmt::join(r.problems, "; ")));
  REQUIRE(r.subnet_up);
  REQUIRE(r.subnet);
  auto s = sa::build_sa_snapshot(*r.subnet, sa_options());
  INFO((s.ok() ? std::string() : s.status().message()));
  REQUIRE(s.ok());
  return std::move(*s);
}

// The snapshot of a generated fabric: LIDs as the sweep would assign them,
// no routes, PortInfo made up from the model, the SM on the first CA.
inline sa::SaSnapshot offline_snapshot(Fabric f, uint8_t lmc = 0) {
  for (uint32_t i = 0; i < f.node_count(); ++i)
    for (Port& p : f.node(NodeIndex{i}).ports)
      if (p.connected()) p.state = PortState::active;
  LidOptions lo;
  lo.lmc = lmc;
  auto a = assign_lids(f, lo, nullptr);
  REQUIRE(a.ok());
  REQUIRE(apply_lids(*a, f).ok());
  SubnetParts parts;
  parts.sm_port = SweepHarness::first_ca_port(f);
  parts.fabric = std::move(f);
  auto subnet = configured_subnet(std::move(parts), SubnetDefaults{});
  REQUIRE(subnet.ok());
  auto s = sa::build_sa_snapshot(*subnet, sa_options());
  REQUIRE(s.ok());
  return std::move(*s);
}

// ibsim's net.2sw2path4hca2port example: two switches joined by two
// cables, two two-port HCAs each cabled twice to one switch.
inline Fabric two_port_hca_fabric() {
  std::istringstream net(R"(
Switch 8 "Switch1"
[1] "Hca1"[1]
[2] "Hca1"[2]
[3] "Switch2"[3]
[5] "Switch2"[5]

Switch 8 "Switch2"
[1] "Hca2"[1]
[2] "Hca2"[2]
[3] "Switch1"[3]
[5] "Switch1"[5]

Hca 2 "Hca1"
[1] "Switch1"[1]
[2] "Switch1"[2]

Hca 2 "Hca2"
[1] "Switch2"[1]
[2] "Switch2"[2]
)");
  return must(read_netfile(net, "net.2sw2path4hca2port"));
}

// A subscription to one generic trap from every LID, every producer, QP 1.
inline wire::InformInfo generic_trap(uint16_t trap) {
  wire::InformInfo ii;
  ii.lid_range_begin = Lid{wire::inform_all_lids};
  ii.is_generic = 1;
  ii.subscribe = 1;
  ii.type = wire::inform_all_types;
  ii.trap_number = trap;
  ii.qpn = 1;
  ii.resp_time_value = 18;
  ii.producer_type = wire::inform_all_producer_types;
  return ii;
}

// An SA request for `client` tests: `record` encoded as the request's data.
template <typename R>
sa::SaRequest sa_request(uint8_t method, uint16_t attribute, uint64_t mask, const R& record, size_t record_size) {
  sa::SaRequest req;
  req.method = method;
  req.attribute = attribute;
  req.component_mask = mask;
  req.data.assign(record_size, 0);
  encode(record, req.data);
  return req;
}

}  // namespace ibsm::test
