#include "sm/fabric/netfile_writer.h"

#include <iterator>
#include <vector>

#include <fmt/format.h>

#include "sm/fabric/netfile_text.h"

namespace ibsm {
namespace {

// A name ibsim reads back as written: not too long, nothing it reserves.
bool usable_name(std::string_view name) {
  return !name.empty() && name.size() <= netfile_text::kMaxNameLength &&
         name.find_first_of("\"#@\r\n") == std::string_view::npos;
}

// A description inside the quotes of a "# "..."" comment: ibsim stops at a
// quote, and a line must stay one line.
std::string clean_description(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c == '"') c = '\'';
    else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
  }
  return out;
}

class IbnetdiscoverWriter {
 public:
  IbnetdiscoverWriter(const Fabric& fabric, std::ostream& out) : fabric_(fabric), out_(out) {
    names_.reserve(fabric.node_count());
    for (const Node& n : fabric.nodes()) names_.push_back(usable_name(n.name) ? n.name : ibnetdiscover_name(n));
  }

  void write() {
    out_ << "#\n# Topology file: written by ibsm in ibnetdiscover's format\n#\n";
    for (NodeType type : {NodeType::switch_, NodeType::ca, NodeType::router}) {
      for (size_t i = 0; i < fabric_.node_count(); ++i) {
        if (fabric_.nodes()[i].type == type) write_node(i);
      }
    }
  }

 private:
  // The LID that ibnetdiscover shows for a peer: a switch's is its port 0's.
  Lid lid_of(NodeIndex node, uint8_t port) const {
    const Node& n = fabric_.node(node);
    return n.is_switch() ? n.port(0).base_lid : n.port(port).base_lid;
  }

  void write_node(size_t i) {
    const Node& n = fabric_.nodes()[i];
    fmt::memory_buffer buf;
    auto it = std::back_inserter(buf);
    fmt::format_to(it, "\nvendid={:#x}\ndevid={:#x}\n", n.vendor_id, n.device_id);
    if (!n.system_guid.is_zero()) fmt::format_to(it, "sysimgguid={:#x}\n", n.system_guid.value);
    if (n.is_switch()) {
      const Port& p0 = n.port(0);
      fmt::format_to(it, "switchguid={:#x}({:x})\n", n.node_guid.value, p0.guid.value);
      fmt::format_to(it, "Switch\t{} \"{}\"\t\t# \"{}\" {} port 0 lid {} lmc {}\n", n.num_ports, names_[i],
                     clean_description(n.description), n.enhanced_port0 ? "enhanced" : "base", p0.base_lid.value,
                     p0.lmc);
    } else {
      const bool router = n.type == NodeType::router;
      fmt::format_to(it, "{}guid={:#x}\n", router ? "rt" : "ca", n.node_guid.value);
      fmt::format_to(it, "{}\t{} \"{}\"\t\t# \"{}\"\n", router ? "Rt" : "Ca", n.num_ports, names_[i],
                     clean_description(n.description));
    }
    for (unsigned p = 1; p <= n.num_ports; ++p) {
      const Port& port = n.port(static_cast<uint8_t>(p));
      if (!port.connected()) continue;
      const Node& remote = fabric_.node(port.remote_node);
      const Port& remote_port = remote.port(port.remote_port);
      const std::string rate = fmt::format("{}{}", link_width_name(port.width_active),
                                           link_speed_name(port.speed_active, port.speed_ext_active));
      const std::string& remote_name = names_[port.remote_node.value];
      const std::string remote_description = clean_description(remote.description);
      const Lid remote_lid = lid_of(port.remote_node, port.remote_port);
      if (n.is_switch()) {
        fmt::format_to(it, "[{}]\t\"{}\"[{}]", p, remote_name, port.remote_port);
        if (!remote.is_switch()) fmt::format_to(it, "({:x}) ", remote_port.guid.value);
        fmt::format_to(it, "\t\t# \"{}\" lid {} {}\n", remote_description, remote_lid.value, rate);
      } else {
        fmt::format_to(it, "[{}]({:x}) \t\"{}\"[{}]", p, port.guid.value, remote_name, port.remote_port);
        if (!remote.is_switch()) fmt::format_to(it, " ({:x}) ", remote_port.guid.value);
        fmt::format_to(it, "\t\t# lid {} lmc {} \"{}\" lid {} {}", port.base_lid.value, port.lmc,
                       remote_description, remote_lid.value, rate);
        // ibsim reads no rate on a router's port line, only port options:
        // the ones `ibnetdiscover -f` prints, and e= for an extended speed.
        if (n.type == NodeType::router) {
          fmt::format_to(it, " s={} w={}", port.speed_active, port.width_active);
          if (port.speed_ext_active != link_speed_ext::none) fmt::format_to(it, " e={}", port.speed_ext_active);
        }
        fmt::format_to(it, "\n");
      }
    }
    out_.write(buf.data(), static_cast<std::streamsize>(buf.size()));
  }

  const Fabric& fabric_;
  std::ostream& out_;
  std::vector<std::string> names_;
};

}  // namespace

std::string ibnetdiscover_name(const Node& node) {
  const char* prefix = node.is_switch() ? "S" : node.type == NodeType::ca ? "H" : node.type == NodeType::router ? "R" : "?";
  return fmt::format("{}-{:016x}", prefix, node.node_guid.value);
}

void write_ibnetdiscover(const Fabric& fabric, std::ostream& out) { IbnetdiscoverWriter(fabric, out).write(); }

}  // namespace ibsm
