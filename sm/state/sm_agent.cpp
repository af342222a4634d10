#include "sm/state/sm_agent.h"

#include "mad/wire/response.h"
#include "mad/wire/smp.h"

namespace ibsm {

SmAgent::SmAgent(MadDispatcher& dispatcher, SmIdentity identity, LogSink& log)
    : dispatcher_(dispatcher), identity_(identity), log_(log) {
  dispatcher_.set_request_handler([this](const MadPacket& p) { on_request(p); });
}

bool SmAgent::take_sweep_request() {
  bool r = sweep_requested_;
  sweep_requested_ = false;
  return r;
}

wire::SmInfo SmAgent::my_sm_info() const {
  wire::SmInfo info;
  info.guid = identity_.port_guid;
  info.sm_key = identity_.sm_key;
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
  ++answered_;
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
    ++traps_;
    sweep_requested_ = true;
    log(log_, LogLevel::info, Subsystem::state, "trap from lid {}: heavy sweep due", request.address.lid);
    respond(request, wire::make_response(request.data));  // TrapRepress
    if (trap_listener_) {
      auto notice = wire::decode_notice(
          std::span<const uint8_t>(request.data).subspan(wire::smp_data_offset, wire::notice_size_without_gid));
      if (notice.ok()) trap_listener_(*notice);
    }
    return;
  }
  if (attr == wire::smp_attr::sm_info && method == wire::method::get) {
    wire::MadBuffer answer = wire::make_get_response(request.data);
    wire::encode(my_sm_info(), wire::smp_data(answer));
    respond(request, answer);
    return;
  }
  if (wire::response_method(method))
    respond(request, wire::make_get_response(request.data, wire::mad_status::method_attr_unsupported));
}

}  // namespace ibsm
