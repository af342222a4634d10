#include "sm/multicast/multicast_service.h"

namespace ibsm {

Result<MulticastUpdate> MulticastService::after_heavy_sweep(MadDispatcher& dispatcher, SweepState& state,
                                                            const SweepReport& report,
                                                            std::span<const MulticastGroupMembers> groups, LogSink& log) {
  if (!report.subnet) return failed_precondition_error("the sweep configured no subnet");
  auto created = MulticastForwarding::create(report.subnet, report.routes.engine_used);
  if (!created.ok()) return created.status();
  forwarding_ = std::make_unique<MulticastForwarding>(std::move(*created));
  return publish(update_multicast(dispatcher, state, *forwarding_, groups, true, log));
}

Result<MulticastUpdate> MulticastService::after_membership_change(MadDispatcher& dispatcher, SweepState& state,
                                                                  std::span<const MulticastGroupMembers> changed,
                                                                  LogSink& log) {
  if (!forwarding_) return failed_precondition_error("no heavy sweep has configured the subnet yet");
  return publish(update_multicast(dispatcher, state, *forwarding_, changed, false, log));
}

const std::shared_ptr<const SubnetSnapshot>& MulticastService::subnet() const {
  static const std::shared_ptr<const SubnetSnapshot> none;
  return forwarding_ ? forwarding_->subnet_ptr() : none;
}

Result<MulticastUpdate> MulticastService::publish(Result<MulticastUpdate> update) {
  if (update.ok()) published_ = std::make_shared<const MulticastTables>(forwarding_->tables());
  return update;
}

}  // namespace ibsm
