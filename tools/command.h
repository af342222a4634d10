// ibsm is one git-style executable; every subcommand is a function in its own
// file (cmd_<name>.cpp) registered in main.cpp's table. Commands return a
// process exit status: 0 success, 1 the job failed, 2 bad usage.
#pragma once

namespace ibsm::tools {

struct Command {
  const char* name;
  const char* summary;
  int (*run)(int argc, char** argv);  // argv[0] is the command name
  // Holds a whole fabric's tables: runs on a huge-page heap
  // (tools/os/huge_page_heap.h).
  bool whole_fabric = false;
};

int cmd_discover(int argc, char** argv);
int cmd_run(int argc, char** argv);
int cmd_topo(int argc, char** argv);
int cmd_check(int argc, char** argv);
int cmd_route(int argc, char** argv);
int cmd_query(int argc, char** argv);
int cmd_ctl(int argc, char** argv);

}  // namespace ibsm::tools
