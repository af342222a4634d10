// The SM's cache files (the edge's half of SweepState persistence): the
// guid2lid map in OpenSM's format, so a restart gives every port its LID
// back, and what each switch's forwarding table holds, so a restart on a
// configured fabric rewrites no table.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "mad/base/status.h"
#include "sm/sweep/sweep_state.h"

namespace ibsm {

// Loads what exists in `dir` into `state`; a missing file is no error (a
// first start), a malformed one is reported in `warnings` and skipped. The
// switch tables are the base file with its journal applied (SmCacheSaver);
// a damaged journal drops every switch table, so the next sweep reads the
// switches back rather than trust a table that may be stale.
Status load_sm_cache(const std::string& dir, SweepState& state, std::vector<std::string>& warnings);
// Writes the cache files atomically (write_file_atomically), creating `dir`:
// all of them, the switch tables in full.
Status save_sm_cache(const std::string& dir, const SweepState& state);
// A copy of what the cache files hold of `state` (the GUID-to-LID and
// GUID-to-M_Key maps, the switch tables, the port settings), for a save on
// another thread: the P_Key and VL tables the SM remembers are not saved,
// and at the full LID space their copy was some 300k small allocations
// made while `ibsm run -o` waits.
SweepState cached_part(const SweepState& state);

// Saves the cache again and again, as the daemon does after every sweep,
// with the switch tables as changes where it can. On the 42,772-LID fat
// tree the tables are some 300 MB of text: rewritten after a sweep that
// changed a few thousand entries (a cable pulled), the save held the disk
// and a core for seconds and slowed the next event's sweep. So after a full
// save, the blocks that change are appended to a journal beside the tables
// ("ibsm-switch-tables.journal", fsynced), told apart by a 64-bit hash of
// each 64-entry block as last saved (18 MB at 42k LIDs, where a copy of the
// tables would be 148 MB). Base and journal carry the same generation
// number; a journal of another generation (a crash between the two writes
// of a full save) is ignored. Once the journal outgrows a quarter of the
// base, the next save is a full one and starts a new journal. The other
// files are rewritten each time (some 20 MB at 42k LIDs, streamed).
class SmCacheSaver {
 public:
  // `journal` false: every save is a full one, and no block hashes are
  // kept for a journal (25 MB and 0.35 s at the full LID space), for a
  // single save such as `ibsm run -o`'s.
  explicit SmCacheSaver(bool journal = true) : keep_hashes_(journal) {}
  Status save(const std::string& dir, const SweepState& state);
  // What the last save wrote: the whole tables, or journal records.
  bool last_was_full() const { return last_full_; }
  size_t journal_bytes() const { return journal_bytes_; }

 private:
  struct Saved {
    Lid lid;
    uint16_t linear_fdb_top = 0;
    size_t entries = 0;
    std::vector<uint64_t> block_hash;
  };
  Status save_full(const std::string& dir, const SweepState& state);
  // The journal records of the changes from what was saved to `state`
  // (empty: none; none either without `write`); `saved_` then describes `state`.
  std::string journal_records(const SweepState& state, bool write);

  bool keep_hashes_;  // false: a single save, never followed by journal records
  std::string dir_;
  uint64_t generation_ = 0;  // 0: nothing saved by this saver yet
  size_t base_bytes_ = 0;
  size_t journal_bytes_ = 0;
  bool last_full_ = false;
  std::map<Guid, Saved> saved_;
};

}  // namespace ibsm
