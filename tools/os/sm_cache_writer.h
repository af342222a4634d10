// The daemon's SM cache saves on a thread of their own. On the 42,772-LID
// fat tree the cache is some 300 MB of text and a save takes seconds: made
// after every sweep on the main loop, it held back the next trap's sweep
// (a cable pulled a second after a sweep was rerouted a second late).
//
// After the first save the switch tables go out as journal records of the
// blocks that changed (SmCacheSaver), a few kilobytes for a cable pulled.
//
// The main loop hands over a copy of the sweep state (a copy of the tables
// costs tens of milliseconds where the save costs seconds); a save in
// progress is followed only by the newest copy handed over since, so saves
// never pile up. Errors are kept for the main loop to log (the log sinks
// are the main loop's). `ibsm run -o` saves here too and waits at its end
// (which leaves the manager's memory to the kernel: tools/cmd_run.cpp,
// end_once); the copy shares the tables, so the peak grows by the ports'
// memory only. Its saves are whole ones: it keeps no block hashes for a
// journal it never writes.
#pragma once

#include <condition_variable>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "mad/base/status.h"
#include "sm/sweep/sweep_state.h"
#include "tools/os/sm_cache.h"

namespace ibsm {

// Who saves: the daemon, again after every sweep, on a thread at nice 19
// (its sweeps and SA come first), the tables as journal records after the
// first save; or `ibsm run -o`, which waits for its saves, so they run at
// its own priority, each in full.
enum class CacheSaves { repeatedly, once };

class SmCacheWriter {
 public:
  explicit SmCacheWriter(CacheSaves saves = CacheSaves::repeatedly);
  // Waits for the save in progress and the one pending.
  ~SmCacheWriter();
  SmCacheWriter(const SmCacheWriter&) = delete;
  SmCacheWriter& operator=(const SmCacheWriter&) = delete;

  // Saves `state` into `dir` (save_sm_cache) after the save in progress, in
  // place of any copy still waiting.
  void submit(std::string dir, SweepState state);
  // Waits until every copy handed over is saved.
  void flush();
  // The errors of the saves since the last call.
  std::vector<std::string> take_errors();

 private:
  void run();

  std::mutex mutex_;
  std::condition_variable changed_;
  std::optional<std::pair<std::string, SweepState>> pending_;
  bool saving_ = false;
  bool stopping_ = false;
  const CacheSaves saves_;
  std::vector<std::string> errors_;
  SmCacheSaver saver_;  // the writer thread's alone: the switch tables after the first save are journal records
  std::thread thread_;  // last: started once the members above exist
};

}  // namespace ibsm
