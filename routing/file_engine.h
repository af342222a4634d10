// The `file` routing engine (OpenSM's `-R file -U <file>`): forwarding tables
// loaded from a dump rather than computed, so an operator can freeze routes,
// hand-tune them, or program tables an offline run (`ibsm route`) produced.
// It reads both dump formats parse_lft_dump knows: dump_lfts/ibroute output
// and OpenSM's opensm-lfts.dump.
//
// The dump names each entry's destination by port GUID, and LIDs may have
// moved since it was written, so an entry follows its port: the entry for the
// k-th LID of a port's block in the dump becomes the entry for the k-th LID of
// the port's block now (a port's old base LID is the lowest LID the dump names
// it with). Entries for ports that are gone, or beyond a port's block now
// (LMC narrowed), are dropped; entries that name no port keep their LID.
//
// A destination LID no switch of the dump has any entry for (a host added
// since the dump, or the further LIDs of a widened LMC) is routed by min-hop
// on every switch: a whole in-tree of one engine, so it cannot loop. A switch
// of the fabric the dump does not list, or an entry naming a port the switch
// does not have, makes the engine refuse with the reason (the chain moves on):
// mixing a computed table into loaded ones could loop.
#pragma once

#include <memory>
#include <string_view>

#include "routing/engine.h"
#include "sm/dump/lft_dump.h"

namespace ibsm::routing {

inline constexpr std::string_view kFileName = "file";

class FileEngine final : public RoutingEngine {
 public:
  // `dump` may be null: the engine then refuses (no file configured).
  explicit FileEngine(std::shared_ptr<const LftDump> dump, std::string source = {})
      : dump_(std::move(dump)), source_(std::move(source)) {}

  std::string_view name() const override { return kFileName; }
  Result<UnicastTables> compute(const RoutingInput& input) override;

  // How many destination LIDs the last compute() routed by min-hop because
  // the dump had no entry for them.
  size_t minhop_lids() const { return minhop_lids_; }

 private:
  std::shared_ptr<const LftDump> dump_;
  std::string source_;  // the file's name, for messages
  size_t minhop_lids_ = 0;
};

}  // namespace ibsm::routing
