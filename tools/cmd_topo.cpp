#include <cstdio>
#include "tools/command.h"
// placeholder until the topo command lands
int ibsm::tools::cmd_topo(int, char**) { std::fprintf(stderr, "ibsm topo: not built yet\n"); return 1; }
