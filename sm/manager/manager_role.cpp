// The SubnetManager's side of the SM role (sm_role.h): the role decides,
// this carries it out: the election's SMInfo reads, the polls, HANDOVER,
// ACKNOWLEDGE and probe MADs with their answers fed back, what a state
// change means for the agents and the SA, and the control packets and
// operator requests handed to the role.
#include <fmt/format.h>

#include "mad/wire/constants.h"
#include "sa/client.h"
#include "sm/manager/remote_sms.h"
#include "sm/manager/sm_info_smp.h"
#include "sm/manager/subnet_manager.h"

namespace ibsm {

std::optional<RemoteSm> SubnetManager::known_sm(Guid guid) const {
  if (role_.master() && role_.master()->port_guid == guid) return role_.master();
  for (const RemoteSm& r : others_)
    if (r.port_guid == guid) return r;
  return std::nullopt;
}

bool SubnetManager::elect(const DiscoveryResult& discovery) {
  // A control packet may have arrived during discovery (DISABLE, say).
  if (role_.state() != SmState::discovering && role_.state() != SmState::master) return false;
  wire::SmInfo self = agent_.sm_info(true);
  sm_ports_ = sm_ports(discovery, self.guid);
  others_ = read_sm_infos(dispatcher_, sm_ports_, self, role_.take_presumed_dead(), log_);
  // The election as the state is now: a HANDOVER may have come meanwhile.
  const bool discovering = role_.state() == SmState::discovering;
  const bool go_on = role_.discovered(discovering ? self : agent_.sm_info(true), others_, clock_.now());
  carry_out_role();
  return go_on;
}

void SubnetManager::carry_out_role() {
  using Kind = SmRoleAction::Kind;
  for (const SmRoleAction& a : role_.take_actions()) {
    switch (a.kind) {
      case Kind::entered:
        on_entered(a.from, a.to);
        break;
      case Kind::follow:
        agent_.set_followed_master(a.peer->port_guid);
        break;
      case Kind::send_poll:
        send_poll(*a.peer, a.timeout);
        break;
      case Kind::refresh_mirror:
        if (!mirror_.busy()) mirror_.start(sa::sa_address(a.peer->lid), clock_.now());
        break;
      case Kind::send_handover:
        send_handover(*a.peer);
        break;
      case Kind::probe_handover:
        probe_handover(*a.peer);
        break;
      case Kind::send_acknowledge:
        send_acknowledge(*a.peer, a.as_state);
        break;
      case Kind::heavy_sweep:
        scheduler_.want_heavy();
        break;
      case Kind::heavy_sweep_now:
        scheduler_.want_heavy_now();
        break;
    }
  }
}

// What a state change means beyond the role: the agents advertise it, the
// SA serves or goes BUSY, the edge hears of it.
void SubnetManager::on_entered(SmState from, SmState to) {
  agent_.set_state(to_wire(to));
  agent_.set_priority(advertised_priority());
  if (to != SmState::master) lids_assigned_ = false;  // another SM may assign LIDs meanwhile
  if (to != SmState::standby) agent_.set_followed_master(Guid{});
  // Clients ask the SA at the master's LID; a standby's SA is BUSY.
  if (to == SmState::standby || to == SmState::not_active) sa_.set_snapshot(nullptr, clock_.now());
  if (on_state_) on_state_(from, to);
  // A new master (an election, a takeover, a HANDOVER): what the standby
  // mirrored of the old master's SA is served from now on (services,
  // subscriptions), so no client re-registers.
  if (to == SmState::master) (void)mirror_.apply_to(sa_, clock_.now());
}

void SubnetManager::send_poll(const RemoteSm& master, Micros timeout) {
  MadPacket p = sm_info_smp(wire::method::get, 0, master.path, agent_.sm_info(true));
  RequestOptions once;
  once.retries = 0;
  once.timeout = timeout;
  dispatcher_.submit(p, [this](Result<MadPacket> r) {
    role_.poll_answered(sm_info_of(r));
    carry_out_role();
  }, once);
}

void SubnetManager::send_handover(const RemoteSm& to) {
  MadPacket p = sm_info_smp(wire::method::set, wire::sm_info_control::handover, to.path, agent_.sm_info(true));
  dispatcher_.submit(p, [this, guid = to.port_guid](Result<MadPacket> r) {
    role_.handover_answered(guid, sm_info_of(r).status());
    carry_out_role();
  });
}

void SubnetManager::probe_handover(const RemoteSm& to) {
  MadPacket p = sm_info_smp(wire::method::get, 0, to.path, agent_.sm_info(true));
  dispatcher_.submit(p, [this, guid = to.port_guid](Result<MadPacket> r) {
    role_.probe_answered(guid, sm_info_of(r), clock_.now());
    carry_out_role();
  });
}

// The ACKNOWLEDGE carries the state this SM was in when the HANDOVER came
// (STANDBY): OpenSM refuses an ACKNOWLEDGE from an SM that says MASTER
// ("ERR 2F04: Check legality failed").
void SubnetManager::send_acknowledge(const RemoteSm& to, SmState as_state) {
  wire::SmInfo self = agent_.sm_info(true);
  self.sm_state = to_wire(as_state);
  MadPacket p = sm_info_smp(wire::method::set, wire::sm_info_control::acknowledge, to.path, self);
  dispatcher_.submit(p, [this, guid = to.port_guid](Result<MadPacket> r) {
    if (!r.ok()) log(log_, LogLevel::warn, Subsystem::state, "ACKNOWLEDGE to port {}: {}", guid, r.status().message());
  });
}

uint16_t SubnetManager::on_control(const SmControl& c) {
  // The SM that sent it, found before the state changes (the followed master
  // is forgotten when this SM leaves STANDBY).
  const std::optional<RemoteSm> from =
      c.modifier == wire::sm_info_control::handover ? known_sm(c.sender.guid) : std::nullopt;
  const uint16_t status = role_.control(c.modifier, c.sender, from, clock_.now());
  carry_out_role();
  return status;
}

Status SubnetManager::disable() {
  Status done = role_.disable("disabled by the operator");
  carry_out_role();
  return done;
}

Status SubnetManager::enable() {
  Status done = role_.enable("enabled by the operator");
  carry_out_role();
  return done;
}

Result<Guid> SubnetManager::request_handover() {
  Result<Guid> to = role_.request_handover(others_, agent_.sm_info(true).guid, clock_.now());
  carry_out_role();
  return to;
}

}  // namespace ibsm
