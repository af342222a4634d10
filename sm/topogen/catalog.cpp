#include "sm/topogen/catalog.h"

#include <cassert>
#include <cctype>
#include <set>

#include <fmt/format.h>

#include "mad/base/text.h"

namespace ibsm::topogen {
namespace {

// ---- parameter tables -------------------------------------------------------

constexpr ParamSpec kLinkParams[] = {
    {"width", ParamType::width, "4x", "link width: 1x, 2x, 4x, 8x or 12x"},
    {"speed", ParamType::speed, "QDR", "link speed: SDR, DDR, QDR, FDR, EDR, HDR or NDR"},
};

constexpr ParamSpec kLeafSpine[] = {
    {"leaves", ParamType::count, "4", "leaf switches"},
    {"spines", ParamType::count, "2", "spine switches"},
    {"hosts", ParamType::count, "4", "hosts per leaf"},
    {"links", ParamType::count, "1", "cables between each leaf and each spine"},
    {"radix", ParamType::count, "0", "ports on every switch; 0 = the fewest that fit"},
};
constexpr Example kLeafSpineExamples[] = {
    {"leaf-spine --leaves 8 --spines 4 --hosts 16", "128 hosts on 12 switches"},
    {"leaf-spine --leaves 2 --spines 2 --hosts 2 --links 2 --radix 36", "parallel cables, 36-port switches"},
};

constexpr ParamSpec kFatTree[] = {
    {"k", ParamType::count, "4", "half the switch radix: k hosts per leaf, k up ports"},
    {"n", ParamType::count, "3", "levels: k^n hosts, n levels of k^(n-1) switches"},
};
constexpr Example kFatTreeExamples[] = {
    {"fat-tree --k 4 --n 3", "64 hosts, 48 switches of 8 ports"},
    {"fat-tree --k 18 --n 3", "5832 hosts on 36-port switches"},
};

constexpr ParamSpec kXgft[] = {
    {"down", ParamType::list, "4,4,4", "children per switch, leaf level first (the first is hosts per leaf)"},
    {"up", ParamType::list, "1,4,4", "parents per node, host level first (the first is ports per host)"},
    {"radix", ParamType::count, "0", "ports on every switch; 0 = the most any level needs"},
};
constexpr Example kXgftExamples[] = {
    {"xgft --down 18,18,36 --up 1,18,18", "11664 hosts: the full 3-level tree of 36-port switches"},
    {"xgft --down 32,32,48 --up 1,32,32", "49152 hosts (48k) on 64-port switches, 4096 switches"},
    {"xgft --down 32,32,44 --up 1,32,16", "45056 hosts with a slimmed top level, 48384 LIDs in all"},
};

constexpr ParamSpec kMesh[] = {
    {"dims", ParamType::list, "4,4", "switches along each dimension (1 to 3 dimensions)"},
    {"hosts", ParamType::count, "1", "hosts per switch"},
};
constexpr ParamSpec kTorus[] = {
    {"dims", ParamType::list, "4,4,4", "switches along each dimension (1 to 3 dimensions)"},
    {"hosts", ParamType::count, "1", "hosts per switch"},
};
constexpr Example kMeshExamples[] = {
    {"mesh --dims 8,8 --hosts 2", "8x8 mesh, 128 hosts"},
};
constexpr Example kTorusExamples[] = {
    {"torus --dims 4,4,4", "4x4x4 torus, 64 hosts"},
    {"torus --dims 6,6 --hosts 4", "6x6 torus, 144 hosts"},
};

constexpr ParamSpec kHypercube[] = {
    {"dim", ParamType::count, "4", "dimension: 2^dim switches"},
    {"hosts", ParamType::count, "1", "hosts per switch"},
};
constexpr Example kHypercubeExamples[] = {
    {"hypercube --dim 6 --hosts 2", "64 switches, 128 hosts"},
};

constexpr ParamSpec kDragonfly[] = {
    {"a", ParamType::count, "4", "routers per group"},
    {"p", ParamType::count, "2", "hosts per router"},
    {"h", ParamType::count, "2", "global ports per router"},
    {"g", ParamType::count, "9", "groups (every pair joined when a*h >= g-1)"},
};
constexpr Example kDragonflyExamples[] = {
    {"dragonfly --a 4 --p 2 --h 2 --g 9", "balanced: one global cable per group pair, 72 hosts"},
    {"dragonfly --a 8 --p 4 --h 4 --g 17", "544 hosts on 136 routers"},
};

constexpr ParamSpec kRandom[] = {
    {"switches", ParamType::count, "16", "switches"},
    {"degree", ParamType::count, "4", "switch neighbours per switch"},
    {"hosts", ParamType::count, "1", "hosts per switch"},
    {"seed", ParamType::seed, "1", "random seed"},
};
constexpr Example kRandomExamples[] = {
    {"random --switches 64 --degree 6 --hosts 4 --seed 7", "a random 6-regular graph of 64 switches"},
};

constexpr Example kBackToBackExamples[] = {
    {"back-to-back", "two CAs cabled to each other"},
};

// ---- builders from parameter values ------------------------------------------

LeafSpineParams leaf_spine_params(const ParamValues& v) {
  return {v.count("leaves"), v.count("spines"), v.count("hosts"), v.count("links"), v.count("radix"), v.link};
}
KaryNTreeParams fat_tree_params(const ParamValues& v) { return {v.count("k"), v.count("n"), v.link}; }
XgftParams xgft_params(const ParamValues& v) { return {v.list("down"), v.list("up"), v.count("radix"), v.link}; }
MeshParams mesh_params(const ParamValues& v, bool torus) { return {v.list("dims"), torus, v.count("hosts"), v.link}; }
HypercubeParams hypercube_params(const ParamValues& v) { return {v.count("dim"), v.count("hosts"), v.link}; }
DragonflyParams dragonfly_params(const ParamValues& v) {
  return {v.count("a"), v.count("p"), v.count("h"), v.count("g"), v.link};
}
RandomRegularParams random_params(const ParamValues& v) {
  return {v.count("switches"), v.count("degree"), v.count("hosts"), v.seed("seed"), v.link};
}

constexpr KindSpec kKinds[] = {
    {"leaf-spine", "two-level leaf/spine (folded Clos)", kLeafSpine, kLeafSpineExamples,
     [](const ParamValues& v) { return estimate(leaf_spine_params(v)); },
     [](const ParamValues& v) { return leaf_spine(leaf_spine_params(v)); }},
    {"fat-tree", "k-ary n-tree fat tree", kFatTree, kFatTreeExamples,
     [](const ParamValues& v) { return estimate(fat_tree_params(v)); },
     [](const ParamValues& v) { return kary_ntree(fat_tree_params(v)); }},
    {"xgft", "generalized (slimmed) fat tree XGFT(h; m1..mh; w1..wh)", kXgft, kXgftExamples,
     [](const ParamValues& v) { return estimate(xgft_params(v)); },
     [](const ParamValues& v) { return xgft(xgft_params(v)); }},
    {"mesh", "1D to 3D mesh of switches", kMesh, kMeshExamples,
     [](const ParamValues& v) { return estimate(mesh_params(v, false)); },
     [](const ParamValues& v) { return mesh(mesh_params(v, false)); }},
    {"torus", "1D to 3D torus of switches (every dimension wraps)", kTorus, kTorusExamples,
     [](const ParamValues& v) { return estimate(mesh_params(v, true)); },
     [](const ParamValues& v) { return mesh(mesh_params(v, true)); }},
    {"hypercube", "binary hypercube of switches", kHypercube, kHypercubeExamples,
     [](const ParamValues& v) { return estimate(hypercube_params(v)); },
     [](const ParamValues& v) { return hypercube(hypercube_params(v)); }},
    {"dragonfly", "dragonfly: all-to-all groups, balanced global cables", kDragonfly, kDragonflyExamples,
     [](const ParamValues& v) { return estimate(dragonfly_params(v)); },
     [](const ParamValues& v) { return dragonfly(dragonfly_params(v)); }},
    {"random", "random regular graph of switches (connected, simple)", kRandom, kRandomExamples,
     [](const ParamValues& v) { return estimate(random_params(v)); },
     [](const ParamValues& v) { return random_regular(random_params(v)); }},
    {"back-to-back", "two CAs cabled together, no switch", std::span<const ParamSpec>{},
     kBackToBackExamples, [](const ParamValues& v) { return estimate(BackToBackParams{v.link}); },
     [](const ParamValues& v) { return back_to_back(BackToBackParams{v.link}); }},
};

// ---- value parsing -------------------------------------------------------------

Result<uint64_t> parse_number(std::string_view name, std::string_view text, uint64_t max) {
  const auto value = parse_unsigned(text, Notation::decimal);
  if (!value) return invalid_argument_error(fmt::format("{}: '{}' is not a non-negative number", name, text));
  if (*value > max) return invalid_argument_error(fmt::format("{}: {} is more than {}", name, *value, max));
  return *value;
}

Result<std::vector<uint64_t>> parse_value(const ParamSpec& spec, std::string_view text) {
  std::vector<uint64_t> out;
  switch (spec.type) {
    case ParamType::count:
    case ParamType::seed: {
      auto n = parse_number(spec.name, text, spec.type == ParamType::seed ? UINT64_MAX : UINT32_MAX);
      if (!n.ok()) return n.status();
      out.push_back(*n);
      return out;
    }
    case ParamType::list: {
      size_t start = 0;
      for (;;) {
        const size_t comma = text.find(',', start);
        auto n = parse_number(spec.name, text.substr(start, comma - start), UINT32_MAX);
        if (!n.ok()) return n.status();
        out.push_back(*n);
        if (comma == std::string_view::npos) return out;
        start = comma + 1;
      }
    }
    case ParamType::width:
    case ParamType::speed:
      break;  // parsed into LinkOptions by parse_link_value
  }
  return internal_error("not a numeric parameter");
}

std::string upper(std::string_view text) {
  std::string s(text);
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

Status parse_link_value(const ParamSpec& spec, std::string_view text, LinkOptions& link) {
  const std::string t = upper(text);
  if (spec.type == ParamType::width) {
    static constexpr std::pair<const char*, uint8_t> kWidths[] = {
        {"1X", link_width::x1}, {"2X", link_width::x2}, {"4X", link_width::x4},
        {"8X", link_width::x8}, {"12X", link_width::x12}};
    for (const auto& [name, code] : kWidths) {
      if (t == name || t + "X" == name) {
        link.width = code;
        return {};
      }
    }
    return invalid_argument_error(fmt::format("width: '{}' is not 1x, 2x, 4x, 8x or 12x", text));
  }
  // FDR and faster are extended speeds (PortInfo:LinkSpeedExtActive), with the
  // legacy LinkSpeedActive at its highest, QDR.
  static constexpr struct { const char* name; uint8_t speed, ext; } kSpeeds[] = {
      {"SDR", link_speed::sdr, link_speed_ext::none}, {"DDR", link_speed::ddr, link_speed_ext::none},
      {"QDR", link_speed::qdr, link_speed_ext::none}, {"FDR", link_speed::qdr, link_speed_ext::fdr},
      {"EDR", link_speed::qdr, link_speed_ext::edr},  {"HDR", link_speed::qdr, link_speed_ext::hdr},
      {"NDR", link_speed::qdr, link_speed_ext::ndr}};
  for (const auto& s : kSpeeds) {
    if (t == s.name) {
      link.speed = s.speed;
      link.speed_ext = s.ext;
      return {};
    }
  }
  return invalid_argument_error(fmt::format("speed: '{}' is not SDR, DDR, QDR, FDR, EDR, HDR or NDR", text));
}

const ParamSpec* find_param(const KindSpec& kind, std::string_view name) {
  for (const ParamSpec& p : kind.params) {
    if (name == p.name) return &p;
  }
  for (const ParamSpec& p : kLinkParams) {
    if (name == p.name) return &p;
  }
  return nullptr;
}

Status set_value(const ParamSpec& spec, std::string_view text, ParamValues& values) {
  if (spec.type == ParamType::width || spec.type == ParamType::speed) {
    return parse_link_value(spec, text, values.link);
  }
  auto parsed = parse_value(spec, text);
  if (!parsed.ok()) return parsed.status();
  values.numbers[spec.name] = std::move(*parsed);
  return {};
}

const std::vector<uint64_t>& numbers_of(const ParamValues& v, std::string_view name) {
  const auto it = v.numbers.find(name);
  assert(it != v.numbers.end() && !it->second.empty() && "parameter not in the kind's table");
  static const std::vector<uint64_t> kZero{0};
  return it == v.numbers.end() || it->second.empty() ? kZero : it->second;
}

}  // namespace

uint32_t ParamValues::count(std::string_view name) const {
  return static_cast<uint32_t>(numbers_of(*this, name)[0]);
}
uint64_t ParamValues::seed(std::string_view name) const { return numbers_of(*this, name)[0]; }
std::vector<uint32_t> ParamValues::list(std::string_view name) const {
  std::vector<uint32_t> out;
  for (uint64_t n : numbers_of(*this, name)) out.push_back(static_cast<uint32_t>(n));
  return out;
}

std::span<const KindSpec> kinds() { return kKinds; }
std::span<const ParamSpec> link_params() { return kLinkParams; }

const KindSpec* find_kind(std::string_view name) {
  for (const KindSpec& k : kKinds) {
    if (name == k.name) return &k;
  }
  return nullptr;
}

Result<ParamValues> parse_params(const KindSpec& kind, const ParamArgs& given) {
  ParamValues values;
  auto defaults = [&](std::span<const ParamSpec> specs) -> Status {
    for (const ParamSpec& p : specs) IBSM_RETURN_IF_ERROR(set_value(p, p.default_value, values));
    return {};
  };
  IBSM_RETURN_IF_ERROR(defaults(kind.params));
  IBSM_RETURN_IF_ERROR(defaults(kLinkParams));
  std::set<std::string_view> seen;
  for (const auto& [name, text] : given) {
    const ParamSpec* spec = find_param(kind, name);
    if (!spec) return invalid_argument_error(fmt::format("{} has no parameter '{}'", kind.name, name));
    if (!seen.insert(spec->name).second) {
      return invalid_argument_error(fmt::format("parameter '{}' given twice", name));
    }
    IBSM_RETURN_IF_ERROR(set_value(*spec, text, values));
  }
  return values;
}

Result<Fabric> generate(std::string_view kind, const ParamArgs& given) {
  const KindSpec* spec = find_kind(kind);
  if (!spec) return invalid_argument_error(fmt::format("unknown topology kind '{}'", kind));
  auto values = parse_params(*spec, given);
  if (!values.ok()) return values.status();
  return spec->build(*values);
}

Result<SizeEstimate> estimate(std::string_view kind, const ParamArgs& given) {
  const KindSpec* spec = find_kind(kind);
  if (!spec) return invalid_argument_error(fmt::format("unknown topology kind '{}'", kind));
  auto values = parse_params(*spec, given);
  if (!values.ok()) return values.status();
  return spec->estimate(*values);
}

}  // namespace ibsm::topogen
