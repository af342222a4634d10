// The multicast forwarding state of a subnet: for every switch, MLID -> the
// ports of the group's tree (sm/fabric/multicast_tables.h), computed from a
// configured snapshot and the SA's groups through the routing engine's
// multicast hook. It keeps what it computed, so a join or a leave
// recomputes only that group's tree; a new snapshot (a heavy sweep) starts a
// new state, into which every group is put again.
#pragma once

#include <map>
#include <memory>
#include <span>
#include <vector>

#include "mad/base/status.h"
#include "routing/engine.h"
#include "routing/graph.h"
#include "routing/multicast_tree.h"
#include "sm/fabric/multicast_tables.h"
#include "sm/fabric/subnet_snapshot.h"

namespace ibsm {

class MulticastForwarding {
 public:
  // No groups yet. The trees come from `engine`'s multicast hooks (its
  // roots, its trees), null: the defaults (routing/multicast_tree.h).
  static Result<MulticastForwarding> create(std::shared_ptr<const SubnetSnapshot> subnet,
                                            std::shared_ptr<const routing::RoutingEngine> engine = nullptr);

  // Puts each group's tree in place of what the group had (a group with no
  // members leaves the tables); the other groups stay as they are. A group
  // whose tree cannot be computed keeps its old entries; the first such
  // error is returned after every other group was updated. The routing
  // graph and the roots are made for the first group with members (a
  // snapshot that gives no routing graph fails there): a subnet whose
  // groups have none yet, as at every bring-up, needs no tree, and finding
  // the central switches at 42k LIDs is a search from each of thousands of
  // switches.
  Status update(std::span<const MulticastGroupMembers> groups);

  const MulticastTables& tables() const { return tables_; }
  const SubnetSnapshot& subnet() const { return *subnet_; }
  const std::shared_ptr<const SubnetSnapshot>& subnet_ptr() const { return subnet_; }
  // Every group with members, by MLID, as last given to update().
  std::vector<MulticastGroupMembers> groups() const;

 private:
  MulticastForwarding() = default;
  // Makes graph_ and builder_ once.
  Status prepare_trees();

  struct Group {
    std::vector<PortRef> members;
    std::vector<NodeIndex> switches;  // the switches with an entry for it
  };

  std::shared_ptr<const SubnetSnapshot> subnet_;
  // Of subnet_->fabric, at a fixed address for builder_; both null until a
  // group with members needs a tree.
  std::unique_ptr<routing::RoutingGraph> graph_;
  std::unique_ptr<routing::MulticastTreeBuilder> builder_;
  std::shared_ptr<const routing::RoutingEngine> engine_;  // null: the defaults
  MulticastTables tables_;
  std::map<uint16_t, Group> groups_;  // by MLID
};

}  // namespace ibsm
