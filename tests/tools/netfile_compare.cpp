// netfile_compare A B: exits 0 when the two topology files (ibsim or
// ibnetdiscover format) describe the same fabric: the same nodes by GUID with
// the same types, port counts, port GUIDs and descriptions, and the same links.
// Otherwise prints the first difference and exits 1 (2 for unreadable input).
// The end-to-end tests use it to judge ibsm's discovery against ibnetdiscover's.
#include <cstdio>

#include "sm/fabric/compare.h"
#include "tools/os/files.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: netfile_compare A B\n");
    return 2;
  }
  auto a = ibsm::load_netfile(argv[1]);
  auto b = ibsm::load_netfile(argv[2]);
  for (const auto* r : {&a, &b}) {
    if (!r->ok()) {
      std::fprintf(stderr, "netfile_compare: %s\n", r->status().message().c_str());
      return 2;
    }
  }
  std::string why;
  if (!ibsm::same_topology(*a, *b, &why)) {
    std::fprintf(stderr, "netfile_compare: %s and %s differ: %s\n", argv[1], argv[2], why.c_str());
    return 1;
  }
  std::printf("same fabric: %zu nodes, %zu links\n", a->node_count(), a->links().size());
  return 0;
}
