// Reads the example netfiles that ibsim-utils installs, when they are there.
#include <filesystem>
#include <sstream>

#include <catch2/catch.hpp>

#include "sm/fabric/compare.h"
#include "sm/fabric/netfile_writer.h"
#include "tests/sm/fabric/fabric_test_util.h"

namespace ibsm {

TEST_CASE("ibsim's example netfiles read, and survive a write", "[fabric][netfile][ibsim-examples]") {
  const std::filesystem::path dir = "/usr/share/doc/ibsim-utils/net-examples";
  if (!std::filesystem::is_directory(dir)) {
    WARN("skipped: " << dir << " is missing (install ibsim-utils)");
    return;
  }
  size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (!name.starts_with("net")) continue;
    ++files;
    INFO(name);
    const Fabric f = test::load_text(test::slurp(entry.path().string()), name);
    CHECK(f.switch_count() > 0);
    CHECK(f.ca_count() > 0);
    // ibsim's counters: switches from 0x200000 one by one, CAs from 0x100000
    // reserving a GUID per port after the node's own.
    uint64_t next_switch = 0x200000, next_ca = 0x100000;
    for (const Node& n : f.nodes()) {
      if (n.is_switch()) {
        CHECK(n.node_guid == Guid{next_switch++});
      } else {
        CHECK(n.node_guid == Guid{next_ca});
        for (unsigned p = 1; p <= n.num_ports; ++p) CHECK(n.port(static_cast<uint8_t>(p)).guid == Guid{next_ca + p});
        next_ca += n.num_ports + 1;
      }
      CHECK(n.description == n.name);
    }
    std::ostringstream out;
    write_ibnetdiscover(f, out);
    const Fabric back = test::load_text(out.str(), name + " (written)");
    std::string why;
    CHECK(same_topology(f, back, &why));
    CHECK(why.empty());
  }
  CHECK(files >= 5);
}

}  // namespace ibsm
