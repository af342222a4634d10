// M_Keys as the SM knows them (IBA 14.2.4): the guid2mkey file, and which
// key an SMP along each directed route must carry.
//
// guid2mkey is OpenSM's cache file of the M_Key each port was last given
// (its cache dir, next to guid2lid): one record "<port guid> <m_key>" per
// port, both 0x%016x, each record followed by an empty line (the layout
// OpenSM's key/value store writes, as for guid2lid). A switch's key is the
// one of its port 0 (its external ports have none), so it is listed by
// port 0's GUID. ibsm reads the file OpenSM writes and writes one OpenSM
// reads. Unlike guid2lid, a bad line is an error that names source:line:
// a key file that does not say what it seems to is not worth guessing at.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "mad/base/status.h"
#include "mad/base/types.h"

namespace ibsm {

// Port GUID -> the M_Key the port holds (last set or learned).
using Guid2MKey = std::map<Guid, uint64_t>;

// Reads a guid2mkey file: blank lines and '#' comments are skipped; any
// other line must be "<port guid> <m_key>" (C numbers, 0x-hex or decimal)
// with a non-zero GUID listed once.
Result<Guid2MKey> parse_guid2mkey(std::string_view text, std::string_view source_name);
// Writes OpenSM's layout, in GUID order: "0x%016x 0x%016x\n\n".
std::string format_guid2mkey(const Guid2MKey& keys);

// The keys to try, in order, on a port whose key is not known: `configured`
// (OpenSM's m_key) first, then the other keys in `known`, most held first,
// at most kMaxMKeyCandidates in all (each costs a timeout at a port that
// refuses it).
inline constexpr size_t kMaxMKeyCandidates = 4;
std::vector<uint64_t> m_key_candidates(uint64_t configured, const Guid2MKey& known);

// The M_Key each directed route's SMPs carry: the key of the port at its
// end (a switch's port 0, or the CA port the route enters). Paths not in
// here carry 0, so a subnet without M_Keys costs nothing. A path can also be
// marked refused: its port holds a key the SM does not know, and an SMP
// there would only be dropped, counted as a violation and trapped.
class MKeyPaths {
 public:
  // The key for `path`; nullopt when it is refused.
  std::optional<uint64_t> key(const DrPath& path) const;
  void set(const DrPath& path, uint64_t key);
  void refuse(const DrPath& path);
  // (Asked for every port a sweep programs: with nothing refused, no key text is made.)
  bool refused(const DrPath& path) const { return !refused_.empty() && refused_.count(text(path)) != 0; }
  bool empty() const { return keys_.empty() && refused_.empty(); }

 private:
  static std::string text(const DrPath& path);
  std::unordered_map<std::string, uint64_t> keys_;
  std::unordered_set<std::string> refused_;
};

}  // namespace ibsm
