// ibsm topo: write a generated fabric as an ibnetdiscover topology file.
// The kinds and their parameters live in the topogen catalog; this file only
// turns the command line into name/value pairs and writes the result.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <span>
#include <sstream>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "mad/base/text.h"
#include "sm/fabric/netfile_writer.h"
#include "sm/topogen/catalog.h"
#include "sm/topogen/fail_links.h"
#include "tools/args.h"
#include "tools/command.h"
#include "tools/os/files.h"

namespace ibsm::tools {
namespace {

using topogen::KindSpec;
using topogen::ParamSpec;

// ibsim's capacities when started without -N/-S/-P (IBSIM.md).
constexpr uint64_t kIbsimNodes = 2048, kIbsimSwitches = 256, kIbsimPorts = 13312, kIbsimLinearCap = 30720;

const char* type_hint(const ParamSpec& p) {
  switch (p.type) {
    case topogen::ParamType::list: return "N,N,..";
    case topogen::ParamType::width: return "W";
    case topogen::ParamType::speed: return "S";
    case topogen::ParamType::count:
    case topogen::ParamType::seed: break;
  }
  return "N";
}

void print_params(FILE* out, std::span<const ParamSpec> params) {
  for (const ParamSpec& p : params) {
    const std::string flag = fmt::format("--{} {}", p.name, type_hint(p));
    std::fprintf(out, "  %-22s %s (default %s)\n", flag.c_str(), p.help, p.default_value);
  }
}

void print_common_options(FILE* out) {
  print_params(out, topogen::link_params());
  std::fprintf(out,
               "  --fail-links K         remove K switch-to-switch cables, chosen with --seed\n"
               "  --fail-ca-links        let --fail-links pick cables to CAs too\n"
               "  --seed S               seed for --fail-links and the random kind (default 1)\n"
               "  --estimate             print node, cable and LID counts instead of the file\n"
               "  -o, --output FILE      write FILE instead of standard output\n"
               "  -h, --help             this text\n");
}

void usage(FILE* out) {
  std::fprintf(out,
               "usage: ibsm topo <kind> [--<param> <value> ...] [options]\n"
               "       ibsm topo <kind> --help\n\n"
               "Writes a generated fabric as an ibnetdiscover topology file that ibsim\n"
               "(IBSIM_SOCKNAME=x ibsim -n -s FILE) and ibsm's netfile reader load.\n"
               "Nodes are named leaf-3, spine-0, sw-1-2-0, host-17; GUIDs are explicit.\n\n"
               "kinds:\n");
  for (const KindSpec& k : topogen::kinds()) std::fprintf(out, "  %-14s %s\n", k.name, k.summary);
  std::fprintf(out, "\noptions (every kind):\n");
  print_common_options(out);
  std::fprintf(out, "\nexamples:\n");
  for (const KindSpec& k : topogen::kinds()) {
    std::fprintf(out, "  ibsm topo %-50s # %s\n", k.examples[0].args, k.examples[0].what);
  }
  std::fprintf(out, "  ibsm topo fat-tree --k 4 --n 3 --fail-links 5 --seed 7 -o ft.net\n");
}

void kind_usage(FILE* out, const KindSpec& k) {
  std::fprintf(out, "usage: ibsm topo %s [options]\n\n%s\n\nparameters:\n", k.name, k.summary);
  if (k.params.empty()) std::fprintf(out, "  (none)\n");
  print_params(out, k.params);
  std::fprintf(out, "\noptions:\n");
  print_common_options(out);
  std::fprintf(out, "\nexamples:\n");
  for (const auto& ex : k.examples) std::fprintf(out, "  ibsm topo %-50s # %s\n", ex.args, ex.what);
}

int bad_usage(std::string_view message, std::string_view kind = {}) {
  std::fprintf(stderr, "ibsm topo: %.*s\n", static_cast<int>(message.size()), message.data());
  if (kind.empty()) {
    std::fprintf(stderr, "see 'ibsm topo --help'\n");
  } else {
    std::fprintf(stderr, "see 'ibsm topo %.*s --help'\n", static_cast<int>(kind.size()), kind.data());
  }
  return 2;
}

void print_estimate(FILE* out, const topogen::SizeEstimate& e) {
  std::fprintf(out,
               "switches %llu\ncas %llu\nnodes %llu\nlinks %llu\nswitch_links %llu\nlids %llu\n",
               static_cast<unsigned long long>(e.switches), static_cast<unsigned long long>(e.cas),
               static_cast<unsigned long long>(e.nodes()), static_cast<unsigned long long>(e.links),
               static_cast<unsigned long long>(e.switch_links), static_cast<unsigned long long>(e.lids_needed()));
}

// Things the file's user should know before starting an SM or ibsim on it.
void print_notes(const topogen::SizeEstimate& e) {
  if (e.lids_needed() > Lid::max_unicast) {
    std::fprintf(stderr, "ibsm topo: note: the fabric needs %llu LIDs, more than the %u unicast LIDs\n",
                 static_cast<unsigned long long>(e.lids_needed()), Lid::max_unicast);
  }
  const uint64_t ports = e.switch_ports + e.switches + e.ca_ports + e.cas;  // port 0 included
  const bool big_lft = e.lids_needed() > kIbsimLinearCap;
  if (e.nodes() > kIbsimNodes || e.switches > kIbsimSwitches || ports > kIbsimPorts || big_lft) {
    std::string flags = fmt::format("-N {} -S {} -P {}", e.nodes(), e.switches, ports);
    if (big_lft) flags += fmt::format(" -L {}", e.lids_needed() + 1);
    std::fprintf(stderr, "ibsm topo: note: larger than ibsim's defaults; start it with %s\n", flags.c_str());
  }
}

}  // namespace

int cmd_topo(int argc, char** argv) {
  if (argc < 2) {
    usage(stderr);
    return 2;
  }
  const std::string_view kind_name = argv[1];
  if (kind_name == "--help" || kind_name == "-h" || kind_name == "help") {
    usage(stdout);
    return 0;
  }
  const KindSpec* kind = topogen::find_kind(kind_name);
  if (!kind) return bad_usage(fmt::format("unknown topology kind {}", ibsm::quoted(kind_name)));

  Args args(argc - 1, argv + 1);  // the kind plays argv[0]
  if (args.flag("--help", "-h")) {
    kind_usage(stdout, *kind);
    return 0;
  }
  // One --seed drives everything random: the kind's wiring and the failures.
  topogen::FailLinksOptions fail{0, 1, false};
  const auto seed = args.integer("--seed", 0, INT64_MAX);
  if (seed) fail.seed = static_cast<uint64_t>(*seed);
  fail.count = static_cast<uint64_t>(args.integer("--fail-links", 0, INT64_MAX).value_or(0));
  fail.include_ca_links = args.flag("--fail-ca-links");
  const bool estimate_only = args.flag("--estimate");
  const std::string output = args.value("--output", "-o").value_or("");

  topogen::ParamArgs params;
  auto take = [&](std::span<const ParamSpec> specs) {
    for (const ParamSpec& p : specs) {
      const std::string flag = fmt::format("--{}", p.name);
      if (std::strcmp(p.name, "seed") == 0) {
        if (seed) params.emplace_back(p.name, std::to_string(*seed));
      } else if (auto v = args.value(flag)) {
        params.emplace_back(p.name, *v);
        if (args.value(flag)) return bad_usage(fmt::format("{} given twice", flag), kind->name);
      }
    }
    return 0;
  };
  if (take(kind->params) || take(topogen::link_params())) return 2;
  const auto extra = args.positionals();  // also flags unknown options
  if (!args.ok()) return bad_usage(args.errors().front(), kind->name);
  if (!extra.empty()) return bad_usage(fmt::format("unexpected argument {}", ibsm::quoted(extra.front())), kind->name);

  auto values = topogen::parse_params(*kind, params);
  if (!values.ok()) return bad_usage(values.status().message(), kind->name);
  auto size = kind->estimate(*values);
  if (!size.ok()) return bad_usage(size.status().message(), kind->name);
  const uint64_t can_fail = fail.include_ca_links ? size->links : size->switch_links;
  if (fail.count > can_fail) {
    return bad_usage(fmt::format("--fail-links {} is more than the {} {}", fail.count, can_fail,
                                 fail.include_ca_links ? "links" : "switch-to-switch links"),
                     kind->name);
  }
  if (estimate_only) {
    print_estimate(stdout, *size);
    return 0;
  }
  print_notes(*size);

  auto fabric = kind->build(*values);
  if (!fabric.ok()) {
    std::fprintf(stderr, "ibsm topo: %s\n", fabric.status().message().c_str());
    return fabric.status().code() == StatusCode::invalid_argument ? 2 : 1;
  }
  if (fail.count > 0) {
    auto failed = topogen::fail_links(*fabric, fail);
    if (!failed.ok()) return bad_usage(failed.status().message(), kind->name);
  }
  std::ostringstream text;
  write_ibnetdiscover(*fabric, text);
  const Status written = write_text_output(output, text.str());
  if (!written.ok()) {
    std::fprintf(stderr, "ibsm topo: %s\n", written.message().c_str());
    return 1;
  }
  return 0;
}

}  // namespace ibsm::tools
