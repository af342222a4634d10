// ibsm: the InfiniBand subnet manager's one executable.
#include <cstdio>
#include <cstring>
#include <exception>

#include "tools/command.h"
#include "tools/os/huge_page_heap.h"

namespace {

using ibsm::tools::Command;

constexpr Command kCommands[] = {
    {"discover", "discover the fabric with directed-route SMPs and print it", ibsm::tools::cmd_discover},
    {"run", "run the subnet manager (daemon, or -o to configure once)", ibsm::tools::cmd_run, true},
    {"route", "route a topology file offline and write the forwarding tables", ibsm::tools::cmd_route, true},
    {"check", "trace every pair through forwarding tables read from a dump", ibsm::tools::cmd_check, true},
    {"query", "ask the subnet administrator (SA) for records, services, subscriptions", ibsm::tools::cmd_query},
    {"topo", "write a generated fabric as a topology file (netfile)", ibsm::tools::cmd_topo},
    {"ctl", "control the running daemon through its control socket", ibsm::tools::cmd_ctl},
};

void usage(FILE* out) {
  std::fprintf(out,
               "usage: ibsm <command> [options]\n"
               "       ibsm <command> --help\n\n"
               "commands:\n");
  for (const auto& c : kCommands) std::fprintf(out, "  %-10s %s\n", c.name, c.summary);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    usage(stderr);
    return 2;
  }
  const char* name = argv[1];
  if (!std::strcmp(name, "--help") || !std::strcmp(name, "-h") || !std::strcmp(name, "help")) {
    usage(stdout);
    return 0;
  }
  if (!std::strcmp(name, "--version")) {
    std::printf("ibsm %s\n", IBSM_VERSION);
    return 0;
  }
  for (const auto& c : kCommands) {
    if (!std::strcmp(name, c.name)) {
      if (c.whole_fabric) ibsm::restart_on_huge_page_heap(argv);
      // The edge: library calls that may throw (std::bad_alloc, fmt) end here
      // with a message instead of an abort.
      try {
        return c.run(argc - 1, argv + 1);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "ibsm %s: %s\n", name, e.what());
        return 1;
      }
    }
  }
  std::fprintf(stderr, "ibsm: unknown command '%s'\n\n", name);
  usage(stderr);
  return 2;
}
