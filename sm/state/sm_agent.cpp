#include "sm/state/sm_agent.h"

#include "mad/wire/response.h"
#include "mad/wire/smp.h"

namespace ibsm {

SmAgent::SmAgent(MadDispatcher& dispatcher, SmIdentity identity, LogSink& log)
    : dispatcher_(dispatcher), identity_(identity), log_(log) {
  dispatcher_.set_request_handler([this](const MadPacket& p) { on_request(p); });
}

uint64_t SmAgent::take_sweep_requests() {
  const uint64_t n = sweep_requests_;
  sweep_requests_ = 0;
  return n;
}

wire::SmInfo SmAgent::sm_info(bool with_key) const {
  wire::SmInfo info;
  info.guid = identity_.port_guid;
  info.sm_key = with_key ? identity_.sm_key : 0;
  // ActCount: management activity, for other SMs' liveness polling (IBA 14.4.1.1).
  info.act_count = static_cast<uint32_t>(dispatcher_.stats().sent);
  info.priority = identity_.priority;
  info.sm_state = state_;
  return info;
}

void SmAgent::respond(const MadPacket& request, const wire::MadBuffer& answer) {
  MadPacket out;
  out.data = answer;
  out.address = request.address;  // back where it came from (the permissive LID for DR)
  Status s = dispatcher_.send_now(out);
  if (!s.ok()) log(log_, LogLevel::warn, Subsystem::state, "cannot answer lid {}: {}", request.address.lid, s.message());
  ++counters_.answered;
}

bool SmAgent::authenticated_set(const wire::SmInfo& sender, uint32_t modifier) const {
  if (sender.sm_key == identity_.sm_key) return true;
  return sender.sm_key == 0 && modifier == wire::sm_info_control::handover && !followed_master_.is_zero() &&
         sender.guid == followed_master_;
}

void SmAgent::on_sm_info_set(const MadPacket& request, const wire::SmInfo& sender, uint32_t modifier) {
  if (!authenticated_set(sender, modifier)) {
    // Refused and counted; the answer shows our SMInfo without the key, so
    // the sender learns our state but nothing it may not know.
    ++counters_.sm_key_refusals;
    log(log_, LogLevel::warn, Subsystem::state, "refused SMInfo {} from guid {} (lid {}): wrong SM_Key",
        wire::sm_control_name(modifier), sender.guid, request.address.lid);
    wire::MadBuffer answer = wire::make_get_response(request.data, wire::mad_status::invalid_field);
    wire::encode(sm_info(false), wire::smp_data(answer));
    respond(request, answer);
    return;
  }
  uint16_t status = wire::mad_status::invalid_field;
  if (modifier >= wire::sm_info_control::handover && modifier <= wire::sm_info_control::discover && control_) {
    status = control_(SmControl{modifier, sender, request.address});
  }
  if (status == wire::mad_status::ok) {
    ++counters_.sm_info_sets;
  } else {
    ++counters_.invalid_controls;
    log(log_, LogLevel::info, Subsystem::state, "SMInfo {} from guid {} not valid in state {}",
        wire::sm_control_name(modifier), sender.guid, wire::sm_state_name(state_));
  }
  wire::MadBuffer answer = wire::make_get_response(request.data, status);
  wire::encode(sm_info(true), wire::smp_data(answer));
  respond(request, answer);
}

void SmAgent::on_request(const MadPacket& request) {
  auto smp = wire::parse_smp(request.data);
  if (!smp.ok()) {
    // Not an SMP: a GMP class this agent does not serve.
    auto h = wire::decode_mad_header(request.data);
    if (h.ok() && wire::response_method(h->method))
      respond(request, wire::make_response(request.data, wire::mad_status::method_attr_unsupported));
    return;
  }
  const uint16_t attr = smp->attr_id();
  const uint8_t method = smp->method();
  if (method == wire::method::trap) {
    ++counters_.traps;
    respond(request, wire::make_response(request.data));  // TrapRepress, for every trap (IBA 13.4.9)
    auto notice = wire::decode_notice(
        std::span<const uint8_t>(request.data).subspan(wire::smp_data_offset, wire::notice_size_without_gid));
    if (!notice.ok()) {
      ++sweep_requests_;
      log(log_, LogLevel::info, Subsystem::state, "trap from lid {}: sweep due", request.address.lid);
      return;
    }
    if (notice->is_generic) ++counters_.traps_by_number[notice->trap_number];
    // A bad M_Key (256) changes nothing in the fabric: it is logged (the
    // listener), not swept for; a sweep would only send more SMPs to a port
    // that refuses them.
    const bool bad_m_key = notice->is_generic && notice->trap_number == wire::trap_number::bad_m_key;
    TrapOutcome outcome = trap_filter_ ? trap_filter_(request, *notice) : TrapOutcome{};
    if (bad_m_key) outcome.sweep = false;
    if (outcome.sweep) ++sweep_requests_;
    if (outcome.log)
      log(log_, LogLevel::info, Subsystem::state, "trap {} from lid {}: {}", notice->trap_number, request.address.lid,
          outcome.sweep ? "sweep due" : "no sweep");
    if (outcome.report && trap_listener_) trap_listener_(*notice);
    return;
  }
  if (attr == wire::smp_attr::sm_info && (method == wire::method::get || method == wire::method::set)) {
    auto sender = wire::decode_sm_info(smp->data());
    if (!sender.ok()) {
      respond(request, wire::make_get_response(request.data, wire::mad_status::invalid_field));
      return;
    }
    if (method == wire::method::set) return on_sm_info_set(request, *sender, smp->attr_mod());
    ++counters_.sm_info_gets;
    auto answer_get = [this, request](bool with_key) {
      wire::MadBuffer answer = wire::make_get_response(request.data);
      wire::encode(sm_info(with_key), wire::smp_data(answer));
      respond(request, answer);
    };
    if (sender->sm_key == identity_.sm_key || !sm_requester_) return answer_get(sender->sm_key == identity_.sm_key);
    sm_requester_(request, answer_get);
    return;
  }
  if (wire::response_method(method))
    respond(request, wire::make_get_response(request.data, wire::mad_status::method_attr_unsupported));
}

}  // namespace ibsm
