// Every SA record and the common class attributes the SA serves (IBA 15.2.5,
// 13.4.8), with their component tables (sa/component_mask.h), in one include
// for the SA agent.
#pragma once

#include "mad/wire/class_port_info.h"
#include "mad/wire/inform_info.h"
#include "mad/wire/notice.h"
#include "mad/wire/sa/component_mask.h"
#include "mad/wire/sa/guid_info_record.h"
#include "mad/wire/sa/inform_info_record.h"
#include "mad/wire/sa/linear_forwarding_table_record.h"
#include "mad/wire/sa/link_record.h"
#include "mad/wire/sa/mc_member_record.h"
#include "mad/wire/sa/multi_path_record.h"
#include "mad/wire/sa/multicast_forwarding_table_record.h"
#include "mad/wire/sa/node_record.h"
#include "mad/wire/sa/p_key_table_record.h"
#include "mad/wire/sa/path_record.h"
#include "mad/wire/sa/port_info_record.h"
#include "mad/wire/sa/service_record.h"
#include "mad/wire/sa/sl_to_vl_table_record.h"
#include "mad/wire/sa/sm_info_record.h"
#include "mad/wire/sa/switch_info_record.h"
#include "mad/wire/sa/vl_arbitration_table_record.h"
#include "mad/wire/sa_header.h"
