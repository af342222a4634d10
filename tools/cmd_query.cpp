// ibsm query: an SA client for operators and scripts. It asks the SA of the
// local port's subnet for any record type by saquery's names, filters by any
// component (FIELD=VALUE), and prints every record, field by field, or JSON.
// It does RMPP itself (sa/client.h), so over ibsim, which carries single MADs
// only, it still returns whole tables; it can also register and delete
// ServiceRecords and subscribe to traps, printing the Reports that arrive.
#include <algorithm>
#include <cstdio>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "mad/base/text.h"
#include "mad/umad/umad_transport.h"
#include "mad/wire/constants.h"
#include "mad/wire/inform_info.h"
#include "mad/wire/mad_header.h"
#include "mad/wire/notice.h"
#include "mad/wire/response.h"
#include "mad/wire/sa_header.h"
#include "sa/client.h"
#include "sa/record_catalog.h"
#include "tools/args.h"
#include "tools/command.h"
#include "tools/os/steady_clock.h"

namespace ibsm::tools {
namespace {

constexpr const char* kQueryUsage =
    "usage: ibsm query [options] TYPE [FIELD=VALUE ...]\n"
    "       ibsm query [options] --subscribe TRAP [--wait SECONDS]\n"
    "       ibsm query --types | --fields TYPE\n"
    "\n"
    "Asks the subnet administrator (SA) for records of TYPE and prints them all.\n"
    "TYPE is a record name or saquery's alias: NodeRecord (NR), PortInfoRecord (PIR),\n"
    "LinkRecord (LR), SwitchInfoRecord (SWIR), LFTRecord (LFTR), MFTRecord (MFTR),\n"
    "SMInfoRecord (SMIR), GUIDInfoRecord (GIR), PKeyTableRecord (PKTR),\n"
    "SL2VLTableRecord (SL2VL), VLArbitrationTableRecord (VLAR), PathRecord (PR),\n"
    "MultiPathRecord (MPR), ServiceRecord (SR), InformInfoRecord (IIR),\n"
    "MCMemberRecord (MCMR), ClassPortInfo (CPI).\n"
    "Each FIELD=VALUE sets a component of the query (its ComponentMask bit): a\n"
    "number (decimal or 0x hex), a GID (fe80::2c9:300:0:1), or text. --fields TYPE\n"
    "lists the field names.\n"
    "\n"
    "options:\n"
    "  --get                 one record (SubnAdmGet): exactly one must match\n"
    "  --set, --delete       SubnAdmSet / SubnAdmDelete the given record: register or\n"
    "                        withdraw a ServiceRecord; join or leave a multicast group\n"
    "                        with an MCMemberRecord (MGID, PortGID and JoinState at\n"
    "                        least; creating a group also needs Q_Key, P_Key, SL,\n"
    "                        FlowLabel and TClass; MGID=:: asks the SA for an MGID)\n"
    "  --smkey KEY           the SM_Key, for trusted queries (P_Key records)\n"
    "  --json                print a JSON array of records\n"
    "  --count               print the number of records only\n"
    "  --subscribe TRAP      subscribe to generic trap TRAP (e.g. 64, 65, 128), print\n"
    "                        each Report for --wait SECONDS (default 10), unsubscribe\n"
    "  --sm-lid LID          the SA's LID (default: the local port's SM LID)\n"
    "  -g, --port-guid GUID  the local port to use\n"
    "  --timeout MS          time to wait for an answer (default 1000)\n"
    "  --retries N           further attempts (default 3)\n"
    "  -h, --help            this text\n"
    "\n"
    "e.g. ibsm query MCMR --set MGID=ff12:401b:ffff::ffff:ffff PortGID=fe80::2 JoinState=1\n"
    "     ibsm query MCMR --delete MGID=ff12:401b:ffff::ffff:ffff PortGID=fe80::2 JoinState=1\n"
    "\n"
    "Exit status: 0 answered (also with no records), 1 the SA answered with an\n"
    "error status or not at all, 2 bad usage.\n";

std::string status_text(uint16_t status) {
  const uint16_t sa = status >> 8;
  static constexpr const char* kSa[] = {"",
                                        "ERR_NO_RESOURCES",
                                        "ERR_REQ_INVALID",
                                        "ERR_NO_RECORDS",
                                        "ERR_TOO_MANY_RECORDS",
                                        "ERR_REQ_GID_INVALID",
                                        "ERR_REQ_INSUFFICIENT_COMPONENTS",
                                        "ERR_REQ_DENIED"};
  if (sa != 0 && sa < std::size(kSa)) return fmt::format("0x{:04x} ({})", status, kSa[sa]);
  switch (status & wire::mad_status::code_mask) {
    case wire::mad_status::bad_version: return fmt::format("0x{:04x} (bad version)", status);
    case wire::mad_status::method_unsupported: return fmt::format("0x{:04x} (method not supported)", status);
    case wire::mad_status::method_attr_unsupported:
      return fmt::format("0x{:04x} (method/attribute combination not supported)", status);
    case wire::mad_status::invalid_field: return fmt::format("0x{:04x} (invalid field)", status);
    default: break;
  }
  if (status & wire::mad_status::busy) return fmt::format("0x{:04x} (busy)", status);
  return fmt::format("0x{:04x}", status);
}

// The field names to print: a name the table repeats (GUIDInfoRecord's
// eight GUIDs, ServiceRecord's ServiceData) gets its index, GUID[0] ...
// GUID[7], so JSON keys stay unique. Reserved components are left out.
std::vector<std::pair<const wire::Component*, std::string>> printed_fields(const sa::RecordType& type) {
  std::vector<std::pair<const wire::Component*, std::string>> out;
  for (const auto& c : type.components) {
    if (c.field.name == "Reserved") continue;
    const auto same = [&](const wire::Component& o) { return o.field.name == c.field.name; };
    const auto total = std::count_if(type.components.begin(), type.components.end(), same);
    const auto index = std::count_if(type.components.begin(), type.components.begin() + (&c - type.components.data()), same);
    out.emplace_back(&c, total > 1 ? fmt::format("{}[{}]", c.field.name, index) : std::string(c.field.name));
  }
  return out;
}

void print_records(const sa::RecordType& type, const sa::SaAnswer& a, bool json) {
  const size_t n = a.record_count();
  const auto fields = printed_fields(type);
  if (json) std::fputs("[", stdout);
  for (size_t i = 0; i < n; ++i) {
    auto rec = a.record(i);
    if (json) {
      std::fputs(i == 0 ? "\n  {" : ",\n  {", stdout);
      bool first = true;
      for (const auto& [c, name] : fields) {
        std::printf("%s\"%s\": %s", first ? "" : ", ", name.c_str(), sa::format_component(rec, *c, true).c_str());
        first = false;
      }
      std::fputs("}", stdout);
    } else {
      std::printf("%.*s %zu of %zu\n", static_cast<int>(type.name.size()), type.name.data(), i + 1, n);
      for (const auto& [c, name] : fields) std::printf("  %-28s %s\n", name.c_str(), sa::format_component(rec, *c, false).c_str());
    }
  }
  if (json) std::fputs(n ? "\n]\n" : "]\n", stdout);
}

// Reports arrive unasked: each is printed and answered with a ReportResponse
// (IBA 13.4.8.2) so the SA stops resending it.
int wait_for_reports(UmadTransport& port, const Clock& clock, Micros until) {
  int reports = 0;
  while (clock.now() < until) {
    port.wait(std::min<Micros>(until - clock.now(), 100'000));
    while (auto p = port.receive()) {
      auto h = wire::decode_mad_header(p->data);
      if (!h.ok() || h->mgmt_class != wire::mgmt_class::subn_adm || h->method != wire::method::report) continue;
      auto notice = wire::decode_notice(std::span<const uint8_t>(p->data).subspan(wire::sa_data_offset, wire::notice_size));
      MadPacket answer;
      answer.data = wire::make_response(p->data);
      answer.address = p->address;
      (void)port.send(answer);
      if (!notice.ok()) continue;
      ++reports;
      std::string subject;
      if (notice->trap_number == 64 || notice->trap_number == 65)  // DataDetails bytes 6-21: the GID (IBA 13.4.8.2)
        subject = " gid " + sa::format_gid(std::span<const uint8_t, 16>(notice->data_details.data() + 6, 16));
      else if (notice->trap_number == 128)  // bytes 0-1: the LID whose port changed
        subject = fmt::format(" lid {}", (notice->data_details[0] << 8) | notice->data_details[1]);
      std::printf("report: trap %u from lid %u%s\n", notice->trap_number, notice->issuer_lid.value, subject.c_str());
      std::fflush(stdout);
    }
  }
  return reports;
}

// The command line, parsed.
struct QueryFlags {
  bool get = false, set = false, del = false, json = false, count_only = false, list_types = false;
  std::optional<std::string> fields_of;
  std::optional<int64_t> subscribe, wait_s, sm_lid, timeout, retries;
  std::optional<uint64_t> smkey, port_guid;
  std::vector<std::string> rest;
  std::vector<std::string> errors;
};

QueryFlags parse_query_flags(Args& args) {
  QueryFlags f;
  f.get = args.flag("--get");
  f.set = args.flag("--set");
  f.del = args.flag("--delete");
  f.json = args.flag("--json");
  f.count_only = args.flag("--count");
  f.list_types = args.flag("--types");
  f.fields_of = args.value("--fields");
  f.subscribe = args.integer("--subscribe", 0, 0xFFFF);
  f.wait_s = args.integer("--wait", 0, 3600);
  f.smkey = args.guid("--smkey");
  f.sm_lid = args.integer("--sm-lid", 1, 0xBFFF);
  f.port_guid = args.guid("--port-guid", "-g");
  f.timeout = args.integer("--timeout", 1, 600'000);
  f.retries = args.integer("--retries", 0, 100);
  f.rest = args.positionals();
  f.errors = args.errors();
  if (int(f.get) + int(f.set) + int(f.del) > 1) f.errors.push_back("--get, --set and --delete exclude each other");
  return f;
}

// --types and --fields TYPE: the catalogue, no SA asked.
int print_catalogue(const QueryFlags& f) {
  if (f.list_types) {
    for (const auto& t : sa::record_types())
      std::printf("%-26.*s %.*s\n", static_cast<int>(t.name.size()), t.name.data(), static_cast<int>(t.alias.size()),
                  t.alias.data());
    return 0;
  }
  const sa::RecordType* t = sa::find_record_type(*f.fields_of);
  if (!t) {
    std::fprintf(stderr, "ibsm query: no record type '%s' (--types lists them)\n", f.fields_of->c_str());
    return 2;
  }
  for (const auto& c : t->components)
    if (c.field.name != "Reserved")
      std::printf("%-28.*s bit %2u, %u bits\n", static_cast<int>(c.field.name.size()), c.field.name.data(), c.bit,
                  c.field.bit_width);
  return 0;
}

// --subscribe TRAP: a Set of an InformInfo for the trap from every LID.
const sa::RecordType* subscribe_request(const QueryFlags& f, sa::SaRequest& req, std::vector<std::string>& errors) {
  if (!f.rest.empty()) errors.push_back("--subscribe takes no record type");
  wire::InformInfo ii;
  ii.lid_range_begin = Lid{0xFFFF};  // every LID: the whole subnet
  ii.is_generic = 1;
  ii.subscribe = 1;
  ii.type = 0xFFFF;  // every notice type
  ii.trap_number = static_cast<uint16_t>(*f.subscribe);
  ii.qpn = 1;
  ii.resp_time_value = 18;
  ii.producer_type = 0xFFFFFF;
  req.data.assign(wire::inform_info_size, 0);
  wire::encode(ii, req.data);
  req.method = wire::method::set;
  return sa::find_record_type("InformInfo");
}

// TYPE FIELD=VALUE...: the record with those components, and the method
// the flags ask for (a table by default).
const sa::RecordType* record_request(const QueryFlags& f, sa::SaRequest& req, std::vector<std::string>& errors) {
  if (f.rest.empty()) {
    errors.push_back("which record type? (--types lists them)");
    return nullptr;
  }
  const sa::RecordType* type = sa::find_record_type(f.rest[0]);
  if (!type) {
    errors.push_back(fmt::format("no record type {} (--types lists them)", ibsm::quoted(f.rest[0])));
    return nullptr;
  }
  req.data.assign(type->size, 0);
  for (size_t i = 1; i < f.rest.size(); ++i) {
    const std::string& word = f.rest[i];
    const auto eq = word.find('=');
    if (eq == std::string::npos) {
      errors.push_back(fmt::format("{} is not FIELD=VALUE", ibsm::quoted(word)));
      continue;
    }
    const auto* c = sa::find_component(*type, std::string_view(word).substr(0, eq));
    if (!c) {
      errors.push_back(fmt::format("{} has no field '{}' (--fields {} lists them)", type->name, word.substr(0, eq),
                                   type->alias));
      continue;
    }
    if (Status s = sa::set_component(req.data, *c, std::string_view(word).substr(eq + 1)); !s.ok())
      errors.push_back(s.message());
    req.component_mask |= uint64_t{1} << c->bit;
  }
  const bool table = type->attribute != wire::sa_attr::class_port_info;
  req.method = f.set ? wire::method::set
               : f.del ? wire::method::delete_
               : f.get || !table ? wire::method::get
               : type->attribute == wire::sa_attr::multi_path_record ? wire::method::get_multi
                                                                     : wire::method::get_table;
  return type;
}

// Subscribed: the Reports until --wait runs out, then the same InformInfo
// with Subscribe 0.
int run_subscription(const QueryFlags& f, UmadTransport& port, const Clock& clock, Lid sa_lid, sa::SaRequest& req,
                     const sa::SaClientOptions& copts) {
  std::printf("subscribed to trap %lld at the SA (lid %u)\n", static_cast<long long>(*f.subscribe), sa_lid.value);
  std::fflush(stdout);
  int n = wait_for_reports(port, clock, clock.now() + Micros{f.wait_s.value_or(10)} * 1'000'000);
  // Unsubscribe: the same InformInfo with Subscribe 0.
  wire::set_field(req.data, wire::inform_info_fields::subscribe, 0);
  req.tid += 2;
  auto gone = sa::run_sa_call(port, clock, sa::sa_address(sa_lid), req, copts);
  std::printf("%d report(s); unsubscribe %s\n", n, gone.ok() && gone->status == 0 ? "done" : "failed");
  return 0;
}

}  // namespace

int cmd_query(int argc, char** argv) {
  Args args(argc, argv);
  if (args.flag("--help", "-h")) {
    std::fputs(kQueryUsage, stdout);
    return 0;
  }
  const QueryFlags f = parse_query_flags(args);
  if (f.list_types || f.fields_of) return print_catalogue(f);
  std::vector<std::string> errors = f.errors;
  sa::SaRequest req;
  const sa::RecordType* type = f.subscribe ? subscribe_request(f, req, errors) : record_request(f, req, errors);
  if (!errors.empty()) {
    for (const auto& e : errors) std::fprintf(stderr, "ibsm query: %s\n", e.c_str());
    std::fputs(kQueryUsage, stderr);
    return 2;
  }
  req.attribute = type->attribute;
  req.sm_key = f.smkey.value_or(0);
  // A TID nobody else on this port is likely to use: the SA keys RMPP
  // transfers by LID and TID, and several clients may share a LID.
  std::random_device rd;
  req.tid = (uint64_t{rd()} & 0x7FFFFFFF) | 1;

  UmadOptions uopts;
  if (f.port_guid) uopts.port_guid = Guid{*f.port_guid};
  // Serving the SA class lets the SA's Reports (requests) reach us.
  if (f.subscribe) uopts.serve_classes = {wire::mgmt_class::subn_adm};
  auto port = UmadTransport::open(uopts);
  if (!port.ok()) {
    std::fprintf(stderr, "ibsm query: %s\n", port.status().message().c_str());
    return 1;
  }
  const Lid sa_lid = f.sm_lid ? Lid{static_cast<uint16_t>(*f.sm_lid)} : (*port)->local_port().sm_lid;
  if (sa_lid.value == 0) {
    std::fprintf(stderr, "ibsm query: the local port knows no SM (SM LID 0); is a subnet manager running?\n");
    return 1;
  }
  SteadyClock clock;
  sa::SaClientOptions copts;
  if (f.timeout) copts.timeout = *f.timeout * 1000;
  if (f.retries) copts.retries = static_cast<int>(*f.retries);
  auto answer = sa::run_sa_call(**port, clock, sa::sa_address(sa_lid), req, copts);
  if (!answer.ok()) {
    std::fprintf(stderr, "ibsm query: %s\n", answer.status().message().c_str());
    return 1;
  }
  if (answer->status != 0) {
    std::fprintf(stderr, "ibsm query: the SA answered %.*s with status %s\n", static_cast<int>(type->name.size()),
                 type->name.data(), status_text(answer->status).c_str());
    return 1;
  }
  if (f.subscribe) return run_subscription(f, **port, clock, sa_lid, req, copts);
  if (f.count_only) {
    std::printf("%zu\n", answer->record_count());
    return 0;
  }
  print_records(*type, *answer, f.json);
  return 0;
}

}  // namespace ibsm::tools
