// write_dot (declared in netfile_writer.h).
#include <iterator>

#include <fmt/format.h>

#include "sm/fabric/netfile_writer.h"

namespace ibsm {
namespace {

// The inside of a DOT double-quoted string.
std::string dot_escape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    if (c == '"' || c == '\\') out.push_back('\\');
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out.push_back(c);
  }
  return out;
}

const char* shape_of(NodeType t) {
  switch (t) {
    case NodeType::switch_: return "box";
    case NodeType::ca: return "ellipse";
    case NodeType::router: return "diamond";
    case NodeType::unknown: break;
  }
  return "octagon";
}

}  // namespace

void write_dot(const Fabric& fabric, std::ostream& out) {
  fmt::memory_buffer buf;
  auto it = std::back_inserter(buf);
  fmt::format_to(it, "graph fabric {{\n  node [fontsize=10];\n  edge [fontsize=8];\n");
  for (size_t i = 0; i < fabric.node_count(); ++i) {
    const Node& n = fabric.nodes()[i];
    const std::string_view title = n.description.empty() ? std::string_view(n.name) : std::string_view(n.description);
    fmt::format_to(it, "  n{} [shape={}, label=\"{}\\n{}\"];\n", i, shape_of(n.type), dot_escape(title), n.node_guid);
  }
  for (const Link& l : fabric.links()) {
    fmt::format_to(it, "  n{} -- n{} [taillabel=\"{}\", headlabel=\"{}\"];\n", l.a.node.value, l.b.node.value,
                   l.a.port, l.b.port);
  }
  fmt::format_to(it, "}}\n");
  out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
}

}  // namespace ibsm
