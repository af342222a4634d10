#include <cstdio>
#include "tools/command.h"
// placeholder until the discover command lands
int ibsm::tools::cmd_discover(int, char**) { std::fprintf(stderr, "ibsm discover: not built yet\n"); return 1; }
